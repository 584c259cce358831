import Foundation

/// The `application/x-www-form-urlencoded` format, as OAuth uses it for form bodies and
/// query strings (RFC 6749 Appendix B; WHATWG URL §5).
public enum FormURLEncoding {
    /// Bytes left as they are: RFC 3986 unreserved characters.
    private static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()

    /// Longest form or query text `decode` accepts.
    public static let maximumLength = 4 * 1024 * 1024

    /// Encodes parameters in order. Spaces become `%20`, which every decoder reads, rather than
    /// `+`, which only form decoders read.
    public static func encode(_ parameters: FormParameters) -> String {
        var parts: [String] = []
        parts.reserveCapacity(parameters.count)
        for pair in parameters {
            parts.append(escape(pair.name) + "=" + escape(pair.value))
        }
        return parts.joined(separator: "&")
    }

    /// Percent-encodes everything but unreserved characters.
    public static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// Decodes `a=1&b=2`; `+` is a space, a pair without `=` has an empty value, empty pairs
    /// (`a=1&&b=2`) are skipped.
    /// - Throws: `HTTPError.malformedBody` for a bad percent escape or bytes that are not UTF-8.
    public static func decode(_ text: String) throws(HTTPError) -> FormParameters {
        guard text.utf8.count <= maximumLength else {
            throw HTTPError(.malformedBody, "form text is longer than \(maximumLength) bytes")
        }
        // Split on the UTF-8 bytes `&` and `=` (ASCII, so every index found is a valid String
        // index): splitting Characters costs grapheme breaking on every request.
        let utf8 = text.utf8
        var result = FormParameters(capacity: utf8.count(where: { $0 == UInt8(ascii: "&") }) + 1)
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            if start < end {
                let piece = text[start..<end]
                if let equals = piece.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    result.append(
                        try unescape(piece[..<equals]),
                        try unescape(piece[piece.utf8.index(after: equals)...]))
                } else {
                    result.append(try unescape(piece), "")
                }
            }
            start = end == utf8.endIndex ? end : utf8.index(after: end)
        }
        return result
    }

    /// Reverses `escape`, reading `+` as a space.
    public static func unescape(_ text: Substring) throws(HTTPError) -> String {
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            return String(text)
        }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        guard let decoded = spaced.removingPercentEncoding else {
            throw HTTPError(
                .malformedBody, "bad percent-encoding or non-UTF-8 bytes in \"\(text.prefix(64))\"")
        }
        return decoded
    }

    /// Appends query parameters to a URL, before any fragment, keeping an existing query.
    public static func appendingQuery(_ parameters: FormParameters, to url: String) -> String {
        guard !parameters.isEmpty else { return url }
        var base = url
        var fragment = ""
        if let hash = url.firstIndex(of: "#") {
            base = String(url[..<hash])
            fragment = String(url[hash...])
        }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + encode(parameters) + fragment
    }
}
