import JSON

/// The cookies of HAR 1.2 `request.cookies` and `response.cookies`.
extension HARWriter {
    /// The pairs of `Cookie` headers (RFC 6265 §4.2.1: `name=value; name=value`).
    static func requestCookies(_ headerValues: [String]) -> [JSONValue] {
        headerValues.flatMap { value in
            value.split(separator: ";").compactMap { pair -> JSONValue? in
                let (name, value) = nameAndValue(pair)
                guard !name.isEmpty else { return nil }
                return ["name": .string(name), "value": .string(value)]
            }
        }
    }

    /// One cookie per `Set-Cookie` header (RFC 6265 §5.2) with the attributes HAR names.
    ///
    /// `Expires` is written as ISO 8601, as HAR asks, when it parses; `Max-Age` wins over it
    /// (§5.3 step 3) and counts from when the exchange started.
    static func responseCookie(_ headerValue: String, receivedAtMilliseconds: Int64) -> JSONValue? {
        var parts = headerValue.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let first = parts.popFirst() else { return nil }
        let (name, value) = nameAndValue(first)
        guard !name.isEmpty else { return nil }
        var cookie: [String: JSONValue] = ["name": .string(name), "value": .string(value)]
        var maxAge: Int64?
        for attribute in parts {
            let (attributeName, attributeValue) = nameAndValue(attribute)
            switch attributeName.lowercased() {
            case "path": cookie["path"] = .string(attributeValue)
            case "domain": cookie["domain"] = .string(attributeValue)
            case "expires":
                let instant = UTCTimestamp.parseHTTPDate(attributeValue)
                cookie["expires"] = .string(
                    instant.map { UTCTimestamp.iso8601(millisecondsSinceEpoch: $0) } ?? attributeValue)
            case "max-age": maxAge = Int64(attributeValue)
            case "httponly": cookie["httpOnly"] = true
            case "secure": cookie["secure"] = true
            default: break
            }
        }
        if let maxAge {
            let seconds = max(-1_000_000_000_000, min(maxAge, 1_000_000_000_000))
            cookie["expires"] = .string(
                UTCTimestamp.iso8601(millisecondsSinceEpoch: receivedAtMilliseconds + seconds * 1000))
        }
        return .object(cookie)
    }

    private static func nameAndValue(_ pair: Substring) -> (String, String) {
        guard let equals = pair.firstIndex(of: "=") else { return (String(pair.trimmingSpaces()), "") }
        return (
            String(pair[..<equals].trimmingSpaces()),
            String(pair[pair.index(after: equals)...].trimmingSpaces())
        )
    }
}
