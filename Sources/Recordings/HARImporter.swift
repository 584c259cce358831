import Foundation
import HTTPCore
import JSON
import Scenario

/// Reads HAR 1.2 files (http://www.softwareishard.com/blog/har-12-spec/) as the tools people
/// have write them: Chrome and Firefox, mitmproxy (`hardump`), Charles and Proxyman exports,
/// and signinsim's own `--har-dir` files.
///
/// Tolerated dialects: sizes of -1, `postData` as `text` or as `params`, response bodies in
/// base64 (`content.encoding`), request bodies marked `_encoding: base64`, any `_` field,
/// missing optional members, timestamps with or without fractions and with any UTC offset.
/// A file that is not HAR (not JSON, not UTF-8, truncated, no `log.entries`) is an error with
/// its place; an entry that cannot be used (no URL, an unknown body encoding) is skipped and
/// listed with the reason.
public enum HARImporter {
    /// Largest capture read.
    public static let maximumSize = 512 << 20

    /// Reads the capture at `path`.
    public static func load(path: String) throws(HARError) -> HARCapture {
        try parse(readFile(path), file: path)
    }

    /// The file's bytes, read straight into one array (a capture can be tens of megabytes:
    /// no intermediate `Data` copy).
    static func readFile(_ path: String) throws(HARError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw HARError(file: path, message: "cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { fclose(file) }
        var info = stat()
        guard fstat(fileno(file), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw HARError(file: path, message: "cannot be read (not a regular file)")
        }
        let size = Int(info.st_size)
        guard size <= maximumSize else {
            throw HARError(file: path, message: "the file is larger than \(maximumSize >> 20) MiB")
        }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = size == 0 ? 0 : fread(buffer.baseAddress, 1, size, file)
            failed = count != size
        }
        guard !failed else { throw HARError(file: path, message: "cannot be read (short read)") }
        return bytes
    }

    /// Reads a capture from bytes; `file` names it in errors.
    public static func parse(_ bytes: consuming [UInt8], file: String) throws(HARError) -> HARCapture {
        guard bytes.count <= maximumSize else {
            throw HARError(file: file, message: "the file is larger than \(maximumSize >> 20) MiB")
        }
        if let bad = firstInvalidUTF8(bytes) {
            throw HARError(
                file: file, line: bad.line, column: bad.column,
                message: "the file is not UTF-8 text (HAR is JSON)")
        }
        var root: JSONValue
        do {
            root = try JSONValue.parse(bytes, maximumSize: maximumSize)
        } catch {
            throw HARError(
                file: file, line: error.line, column: error.column, message: "not JSON: \(error.message)")
        }
        _ = consume bytes
        guard case .object(var document) = root, case .object(var log)? = document["log"] else {
            throw HARError(file: file, message: "not a HAR file: there is no \"log\" object")
        }
        guard case .array(var entries)? = log["entries"] else {
            throw HARError(file: file, message: "not a HAR file: \"log\" has no \"entries\" list")
        }
        var capture = HARCapture(exchanges: [])
        if let creator = log["creator"]?["name"]?.stringValue {
            capture.creator = [creator, log["creator"]?["version"]?.stringValue].compactMap { $0 }.joined(
                separator: " ")
        }
        capture.comment = log["comment"]?.stringValue
        capture.run = log["_signinsim"]?.objectValue
        for page in log["pages"]?.arrayValue ?? [] {
            guard let id = page["id"]?.stringValue else { continue }
            capture.pages.append(
                CapturePage(
                    id: id, title: page["title"]?.stringValue ?? id,
                    startedAtMilliseconds: page["startedDateTime"]?.stringValue.flatMap(
                        Timestamp.milliseconds(fromISO8601:)),
                    step: page["_step"], outcome: page["_outcome"]))
        }
        // Let go of every other reference to the entries so that each entry's tree is freed
        // as soon as it has become an exchange: the peak is the tree, not the tree plus the
        // exchanges.
        root = .null
        document = [:]
        log = [:]
        capture.exchanges.reserveCapacity(entries.count)
        var previousStart: Int64 = 0
        for index in entries.indices {
            let entry = entries[index]
            entries[index] = .null
            do throws(EntryProblem) {
                let exchange = try Self.exchange(entry, previousStart: previousStart)
                previousStart = exchange.startedAtMilliseconds
                capture.exchanges.append(exchange)
                capture.entryNumbers.append(index)
            } catch {
                capture.skipped.append(SkippedEntry(index: index, reason: error.reason))
            }
        }
        return capture
    }

    /// `send` + `wait` + `receive` of a HAR entry's `timings`, when all three are given and not
    /// -1 (HAR 1.2: -1 is "does not apply"); nil otherwise.
    static func answeredAfter(_ timings: JSONValue?) -> Double? {
        let phases = ["send", "wait", "receive"].compactMap { timings?[$0]?.doubleValue }
        guard phases.count == 3, phases.allSatisfy({ $0 >= 0 }) else { return nil }
        return phases.reduce(0, +)
    }

    struct EntryProblem: Error {
        var reason: String
    }

    static func exchange(_ entry: JSONValue, previousStart: Int64) throws(EntryProblem) -> RecordedExchange {
        guard let request = entry["request"]?.objectValue else { throw EntryProblem(reason: "no request") }
        guard let url = request["url"]?.stringValue, !url.isEmpty else {
            throw EntryProblem(reason: "the request has no url")
        }
        let method = (request["method"]?.stringValue ?? "GET").uppercased()
        let started =
            entry["startedDateTime"]?.stringValue.flatMap(Timestamp.milliseconds(fromISO8601:))
            ?? previousStart
        var exchange = RecordedExchange(
            source: entry["_source"]?.stringValue.flatMap(ExchangeSource.init(rawValue:)) ?? .unknown,
            startedAtMilliseconds: started, method: method,
            url: url, requestHeaders: headers(request["headers"]), requestBody: try requestBody(request),
            timeMilliseconds: entry["time"]?.doubleValue ?? 0)
        exchange.error = entry["_error"]?.stringValue
        exchange.app = entry["_app"]?.stringValue
        exchange.engine = entry["_engine"]?.stringValue.flatMap(BrowserEngine.init(rawValue:))
        exchange.pageref = entry["pageref"]?.stringValue
        exchange.wallClockOffsetMilliseconds = entry["_wall_offset_ms"]?.doubleValue
        exchange.answeredAfterMilliseconds = answeredAfter(entry["timings"])
        if let response = entry["response"]?.objectValue {
            let status = response["status"]?.int64Value.map(Int.init) ?? 0
            // Status 0 is how browsers and signinsim record "no response".
            if status > 0 {
                exchange.status = status
                exchange.responseHeaders = headers(response["headers"])
                exchange.responseBody = try responseBody(response["content"])
            } else if exchange.error == nil {
                exchange.error = response["_error"]?.stringValue ?? "no response"
            }
        } else if exchange.error == nil {
            exchange.error = "no response"
        }
        return exchange
    }

    /// The header list; HTTP/2 and HTTP/3 pseudo-headers (`:authority`, `:status`, RFC 9113
    /// §8.3), which browsers list with the others, are left out: they are not fields.
    static func headers(_ value: JSONValue?) -> [HeaderField] {
        (value?.arrayValue ?? []).compactMap { header in
            guard let name = header["name"]?.stringValue, !name.hasPrefix(":") else { return nil }
            return HeaderField(name, header["value"]?.stringValue ?? "")
        }
    }

    /// `postData.text` (decoded when `_encoding`/`encoding` says base64), else `params` encoded
    /// as a form.
    static func requestBody(_ request: [String: JSONValue]) throws(EntryProblem) -> [UInt8] {
        guard let postData = request["postData"]?.objectValue else { return [] }
        if let text = postData["text"]?.stringValue {
            let encoding = postData["_encoding"]?.stringValue ?? postData["encoding"]?.stringValue
            return try decode(text, encoding: encoding, what: "request body")
        }
        guard let params = postData["params"]?.arrayValue, !params.isEmpty else { return [] }
        var form = FormParameters()
        for param in params {
            guard let name = param["name"]?.stringValue else { continue }
            form.append(name, param["value"]?.stringValue ?? "")
        }
        return FormURLEncoding.encodedBytes(form)
    }

    static func responseBody(_ content: JSONValue?) throws(EntryProblem) -> [UInt8] {
        guard let text = content?["text"]?.stringValue else { return [] }
        return try decode(text, encoding: content?["encoding"]?.stringValue, what: "response body")
    }

    static func decode(_ text: String, encoding: String?, what: String) throws(EntryProblem) -> [UInt8] {
        switch encoding?.lowercased() {
        case nil, "", "utf-8", "utf8", "identity":
            return Array(text.utf8)
        case "base64":
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw EntryProblem(reason: "the \(what) is marked base64 but does not decode")
            }
            return [UInt8](data)
        case let other?:
            throw EntryProblem(reason: "the \(what) has an unknown encoding \"\(other.prefix(32))\"")
        }
    }

    /// Line and column of the first byte that breaks UTF-8, if any.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> (line: Int, column: Int)? {
        if String(validating: bytes, as: UTF8.self) != nil { return nil }
        var line = 1
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            let length = utf8Length(bytes, at: index)
            guard length > 0 else { return (line, index - lineStart + 1) }
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            index += length
        }
        return (line, 1)
    }

    /// The length of the valid UTF-8 sequence at `index`, or 0.
    static func utf8Length(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        return String(validating: bytes[index..<index + length], as: UTF8.self) == nil ? 0 : length
    }
}

/// HAR timestamps (ISO 8601, `2026-12-03T07:00:00.123Z` or with an offset `+02:00`), read
/// with Foundation's `Date.ISO8601FormatStyle`, which takes fractions of any length or none.
enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func milliseconds(fromISO8601 text: String) -> Int64? {
        guard let date = try? style.parse(text) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
