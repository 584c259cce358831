import Scenario

/// Reading the few header values a HAR entry needs.
enum HTTPMessageParts {
    /// The value of the first header with this name (field names are case-insensitive,
    /// RFC 9110 §5.1).
    static func value(of name: String, in headers: [HeaderField]) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name.lowercased() == name }?.value
    }

    /// Every value of a header that may repeat (`Set-Cookie`, `Cookie`).
    static func values(of name: String, in headers: [HeaderField]) -> [String] {
        let name = name.lowercased()
        return headers.filter { $0.name.lowercased() == name }.map(\.value)
    }

    /// `type/subtype` in lower case, without parameters (RFC 9110 §8.3.1).
    static func mediaTypeEssence(_ contentType: String?) -> String {
        guard let contentType else { return "" }
        let essence =
            contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return essence.trimmingSpaces().lowercased()
    }

    /// The query of a URL: after the first `?`, before any `#`.
    static func query(of url: String) -> Substring? {
        let beforeFragment = url.prefix { $0 != "#" }
        guard let question = beforeFragment.firstIndex(of: "?") else { return nil }
        return beforeFragment[beforeFragment.index(after: question)...]
    }

    /// The reason phrases of RFC 9110 §15 for the statuses a sign-in meets; empty for others,
    /// as HTTP/2 responses have none either.
    static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space,
    /// RFC 9110 §5.6.3).
    func trimmingSpaces() -> Substring {
        let text = self
        guard let start = text.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = text.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return text[text.endIndex...] }
        return text[start...last]
    }
}
