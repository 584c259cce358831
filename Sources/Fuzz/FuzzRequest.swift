import HTTPCore

/// How a fuzz input becomes requests for the handler targets: HTTP/1.1's message layout, in
/// text, so that seeds are readable and the dictionary's words land in the right places.
///
///     POST /oauth/token?audience=x
///     Content-Type: application/x-www-form-urlencoded
///     DPoP: eyJ…
///
///     grant_type=refresh_token&refresh_token=…
///
/// A line `%%` separates requests run one after the other on the same provider (a login, then
/// the token exchange); at most `maximumRequests` are run. The first line is the method and the
/// target (a path with its query, resolved against the provider's base URL, or an absolute URL);
/// header lines follow up to an empty line; the rest is the body, bytes as given.
enum FuzzRequest {
    static let maximumRequests = 8
    static let separator = Array("\n%%\n".utf8)

    /// The requests of one input; an input without a request line yields none.
    static func requests(in input: [UInt8], baseURL: String) -> [HTTPRequest] {
        var requests: [HTTPRequest] = []
        for part in split(input).prefix(maximumRequests) {
            if let request = request(part, baseURL: baseURL) { requests.append(request) }
        }
        return requests
    }

    static func split(_ input: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = input.startIndex
        var index = input.startIndex
        while index + separator.count <= input.endIndex {
            if input[index..<(index + separator.count)].elementsEqual(separator) {
                parts.append(input[start..<index])
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        parts.append(input[start...])
        return parts
    }

    static func request(_ part: ArraySlice<UInt8>, baseURL: String) -> HTTPRequest? {
        var lines: [Substring] = []
        var rest = part[...]
        var body: [UInt8] = []
        // Header lines end at the first empty line; what follows is the body.
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            var line = rest[rest.startIndex..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            rest = rest[(newline + 1)...]
            if line.isEmpty && !lines.isEmpty {
                body = Array(rest)
                rest = rest[rest.endIndex...]
                break
            }
            lines.append(Substring(decoding: line, as: UTF8.self))
        }
        if !rest.isEmpty { lines.append(Substring(decoding: rest, as: UTF8.self)) }
        guard let requestLine = lines.first else { return nil }
        let words = requestLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let method = words.first, !method.isEmpty else { return nil }
        var target = words.count > 1 ? String(words[1]) : "/"
        // "HTTP/1.1" after the target, as a request line has it, is not part of the target.
        if let space = target.lastIndex(of: " "), target[space...].hasPrefix(" HTTP/") {
            target = String(target[..<space])
        }
        let url =
            target.hasPrefix("http://") || target.hasPrefix("https://")
            ? target : baseURL + (target.hasPrefix("/") ? "" : "/") + target
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces()
            guard !name.isEmpty else { continue }
            headers.add(name: String(name), value: String(line[line.index(after: colon)...].trimmingSpaces()))
        }
        return HTTPRequest(method: HTTPMethod(String(method)), url: url, headers: headers, body: body)
    }

    /// The request as the input format writes it, for crash reports and seeds.
    static func text(_ request: HTTPRequest, baseURL: String) -> String {
        var target = request.url
        if target.hasPrefix(baseURL) { target.removeFirst(baseURL.count) }
        var lines = ["\(request.method.rawValue) \(target)"]
        for field in request.headers { lines.append("\(field.name): \(field.value)") }
        return lines.joined(separator: "\n") + "\n\n" + String(decoding: request.body, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
