import Foundation

/// The `application/x-www-form-urlencoded` format, as OAuth uses it for form bodies and
/// query strings (RFC 6749 Appendix B; WHATWG URL §5).
///
/// Hand-written over UTF-8 bytes rather than Foundation's `addingPercentEncoding` and
/// `removingPercentEncoding`, which bridge through CFString on Linux. It buys a quarter or more
/// of the refresh grant in `scripts/bench issuer-core` (80-107 µs a refresh, 133-144 µs with
/// Foundation's) and of a web flow's CPU in `scripts/bench client --rows web` (1.98 ms a flow,
/// 2.64 with Foundation's; medians of three alternating runs, docs/benchmarks.md).
public enum FormURLEncoding {
    /// Longest form or query text `decode` accepts.
    public static let maximumLength = 4 * 1024 * 1024

    /// Encodes parameters in order. Spaces become `%20`, which every decoder reads, rather than
    /// `+`, which only form decoders read.
    public static func encode(_ parameters: FormParameters) -> String {
        String(decoding: encodedBytes(parameters), as: UTF8.self)
    }

    /// `encode(_:)` as the UTF-8 bytes of a request body, built in one buffer.
    public static func encodedBytes(_ parameters: FormParameters) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            parameters.reduce(parameters.count) { $0 + $1.name.utf8.count + $1.value.utf8.count + 1 })
        for (index, pair) in parameters.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            appendEscaped(pair.name, to: &bytes)
            bytes.append(UInt8(ascii: "="))
            appendEscaped(pair.value, to: &bytes)
        }
        return bytes
    }

    /// Percent-encodes every UTF-8 byte but the unreserved characters (RFC 3986 §2.1, §2.3).
    ///
    /// Byte-wise over UTF-8 rather than Foundation's `addingPercentEncoding`, which bridges
    /// through CFString on Linux and showed up in client profiles (every token request and
    /// authorize URL is encoded here).
    public static func escape(_ text: String) -> String {
        if text.utf8.allSatisfy(isUnreserved) { return text }
        var bytes: [UInt8] = []
        appendEscaped(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            var plainStart = 0
            for (index, byte) in utf8.enumerated() where !isUnreserved(byte) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
                plainStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Decodes `a=1&b=2`; `+` is a space, a pair without `=` has an empty value, empty pairs
    /// (`a=1&&b=2`) are skipped.
    /// - Throws: `HTTPError.malformedBody` for a bad percent escape or bytes that are not UTF-8.
    public static func decode(_ text: String) throws(HTTPError) -> FormParameters {
        guard text.utf8.count <= maximumLength else {
            throw HTTPError(.malformedBody, "form text is longer than \(maximumLength) bytes")
        }
        return try withUTF8Bytes(of: Substring(text)) { bytes throws(HTTPError) in try decode(bytes) }
    }

    /// Reverses `escape`, reading `+` as a space.
    ///
    /// - Throws: `HTTPError.malformedBody` for a `%` not followed by two hex digits, or for
    ///   decoded bytes that are not UTF-8.
    public static func unescape(_ text: Substring) throws(HTTPError) -> String {
        try withUTF8Bytes(of: text) { bytes throws(HTTPError) in try unescape(bytes[...]) }
    }

    // Every form body, query and callback URL of a flow is decoded here: the bytes are read
    // through a buffer pointer, as indexing a String's UTF-8 view costs a bounds and
    // representation check per byte. Every delimiter is ASCII, so each piece cut at one is
    // valid UTF-8 when the text was.

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> FormParameters {
        var result = FormParameters(capacity: bytes.count(where: { $0 == UInt8(ascii: "&") }) + 1)
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if start < end {
                let piece = bytes[start..<end]
                if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                    result.append(try unescape(piece[..<equals]), try unescape(piece[(equals + 1)...]))
                } else {
                    result.append(try unescape(piece), "")
                }
            }
            start = end + 1
        }
        return result
    }

    private static func unescape(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) throws(HTTPError) -> String {
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
        }
        func malformed() -> HTTPError {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
            return HTTPError(
                .malformedBody, "bad percent-encoding or non-UTF-8 bytes in \"\(text.prefix(64))\"")
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 1 < bytes.endIndex, let high = hexValue(bytes[index]),
                    let low = hexValue(bytes[index + 1])
                else { throw malformed() }
                index += 2
                decoded.append(high << 4 | low)
            default:
                decoded.append(byte)
            }
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw malformed() }
        return text
    }

    /// Runs `body` over the text's UTF-8 bytes, in place when they are contiguous (native
    /// strings always are).
    private static func withUTF8Bytes<Value>(
        of text: Substring, _ body: (UnsafeBufferPointer<UInt8>) throws(HTTPError) -> Value
    ) throws(HTTPError) -> Value {
        let outcome: Result<Value, HTTPError>? = text.utf8.withContiguousStorageIfAvailable { bytes in
            Result { () throws(HTTPError) in try body(bytes) }
        }
        if let outcome { return try outcome.get() }
        return try Array(text.utf8).withUnsafeBufferPointer { bytes throws(HTTPError) in try body(bytes) }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Appends query parameters to a URL, before any fragment, keeping an existing query.
    ///
    /// The delimiters are searched as UTF-8 bytes: `String.contains` resolves to Foundation's
    /// substring search, which goes through CFString on Linux (every authorize URL is built here).
    public static func appendingQuery(_ parameters: FormParameters, to url: String) -> String {
        guard !parameters.isEmpty else { return url }
        var base = Substring(url)
        var fragment = Substring()
        if let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) {
            base = url[..<hash]
            fragment = url[hash...]
        }
        let separator =
            switch base.utf8.last {
            case UInt8(ascii: "?"), UInt8(ascii: "&"): ""
            default: base.utf8.contains(UInt8(ascii: "?")) ? "&" : "?"
            }
        return base + separator + encode(parameters) + fragment
    }
}
