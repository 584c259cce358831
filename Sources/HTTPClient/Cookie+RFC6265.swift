import CCurl
import HTTPCore

extension Cookie {
    /// Reads a `Set-Cookie` field value as a user agent receiving it from `url` would
    /// (RFC 6265 §5.2 and §5.3); `nil` when the agent must ignore it.
    ///
    /// - Parameters:
    ///   - setCookieHeaderValue: the field value, without the `Set-Cookie:` name.
    ///   - url: the request URL that the response answered; gives the default domain and path.
    ///   - now: seconds since 1970, to turn `Max-Age` into an expiry.
    public init?(setCookieHeaderValue: String, for url: String, now: Int64) {
        guard let parts = URLParts(url), let host = parts.host, !host.isEmpty else { return nil }
        let requestHost = Self.canonicalHost(host)
        var pieces = setCookieHeaderValue.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = pieces.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingWhitespace()
        let value = pair[pair.index(after: equals)...].trimmingWhitespace()
        guard !name.isEmpty else { return nil }

        var domainAttribute: String?
        var pathAttribute: String?
        var secure = false
        var httpOnly = false
        var maxAge: Int64?
        var expiresAttribute: Int64?
        for attribute in pieces {
            let attributeName: String
            let attributeValue: String
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = attribute[..<equals].trimmingWhitespace().lowercased()
                attributeValue = attribute[attribute.index(after: equals)...].trimmingWhitespace()
            } else {
                attributeName = attribute.trimmingWhitespace().lowercased()
                attributeValue = ""
            }
            switch attributeName {
            case "expires":
                let parsed = Int64(curl_getdate(attributeValue, nil))
                if parsed != -1 { expiresAttribute = parsed }
            case "max-age":
                let digits =
                    attributeValue.hasPrefix("-") ? attributeValue.dropFirst() : Substring(attributeValue)
                if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) {
                    // A huge Max-Age saturates rather than failing (RFC 6265 §5.2.2).
                    let magnitude = Int64(digits) ?? Int64.max / 2
                    maxAge = attributeValue.hasPrefix("-") ? -magnitude : magnitude
                }
            case "domain":
                var domain = Substring(attributeValue)
                if domain.hasPrefix(".") { domain = domain.dropFirst() }
                if !domain.isEmpty { domainAttribute = domain.lowercased() }
            case "path":
                if attributeValue.hasPrefix("/") { pathAttribute = attributeValue }
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            default:
                break
            }
        }

        // Max-Age wins over Expires (§5.3 step 3); a past date means "delete" and is kept as
        // the earliest representable expiry, because 0 would mean "session" in the Netscape format.
        var expires: Int64 = 0
        if let maxAge {
            expires = maxAge <= 0 ? 1 : (now > Int64.max - maxAge ? Int64.max : now + maxAge)
        } else if let expiresAttribute {
            expires = max(expiresAttribute, 1)
        }

        let domain: String
        let includeSubdomains: Bool
        if let domainAttribute {
            // The host must domain-match the attribute (§5.3 step 6); an IP address only itself.
            guard Self.domainMatches(host: requestHost, domain: domainAttribute, includeSubdomains: true)
            else { return nil }
            domain = domainAttribute
            includeSubdomains = !Self.isIPAddress(domainAttribute)
        } else {
            domain = requestHost
            includeSubdomains = false
        }
        self.init(
            domain: domain, includeSubdomains: includeSubdomains,
            path: pathAttribute ?? Self.defaultPath(for: parts.path), secure: secure, httpOnly: httpOnly,
            expires: expires, name: name, value: value)
    }

    /// Whether a request to `url` at `now` carries this cookie (RFC 6265 §5.4 step 1).
    public func matches(url: String, now: Int64) -> Bool {
        guard let parts = URLParts(url), let host = parts.host else { return false }
        if isExpired(at: now) { return false }
        if secure && parts.scheme != "https" { return false }
        return Self.domainMatches(
            host: Self.canonicalHost(host), domain: domain, includeSubdomains: includeSubdomains)
            && Self.pathMatches(requestPath: parts.path.isEmpty ? "/" : parts.path, cookiePath: path)
    }

    /// Domain matching (RFC 6265 §5.1.3); a host-only cookie needs the identical host.
    static func domainMatches(host: String, domain: String, includeSubdomains: Bool) -> Bool {
        if host == domain { return true }
        guard includeSubdomains, !isIPAddress(host) else { return false }
        return host.hasSuffix("." + domain)
    }

    /// Path matching (RFC 6265 §5.1.4).
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/")
            || requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// The default path of a cookie set by a response to `uriPath` (RFC 6265 §5.1.4).
    static func defaultPath(for uriPath: String) -> String {
        guard uriPath.hasPrefix("/"), let lastSlash = uriPath.lastIndex(of: "/"),
            lastSlash != uriPath.startIndex
        else { return "/" }
        return String(uriPath[..<lastSlash])
    }

    /// The host without IPv6 brackets, lowercased, as libcurl's cookie engine stores it.
    static func canonicalHost(_ host: String) -> String {
        var text = Substring(host.lowercased())
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0 == "." || $0.isASCIIDigit })
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
