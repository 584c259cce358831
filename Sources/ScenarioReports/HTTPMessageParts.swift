import HTTPCore
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

    /// The reason phrase of a status (RFC 9110 §15), as HTTPCore spells it.
    static func reasonPhrase(for status: Int) -> String { HTTPStatusText.reasonPhrase(for: status) }
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
