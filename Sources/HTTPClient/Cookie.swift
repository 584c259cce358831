/// One cookie as libcurl's cookie engine keeps it (the Netscape cookie-file fields).
public struct Cookie: Hashable, Sendable {
    /// The host or domain, lowercased, without a leading dot.
    public var domain: String
    /// Whether subdomains of `domain` receive the cookie too (a `Domain` attribute was given);
    /// `false` for a host-only cookie (RFC 6265 §5.3 step 6).
    public var includeSubdomains: Bool
    public var path: String
    /// Sent only over HTTPS.
    public var secure: Bool
    /// Not visible to scripts (`HttpOnly`); the Netscape line carries it as a `#HttpOnly_` prefix.
    public var httpOnly: Bool
    /// Expiry in seconds since 1970; 0 for a session cookie.
    public var expires: Int64
    public var name: String
    public var value: String

    public init(
        domain: String, includeSubdomains: Bool = false, path: String = "/", secure: Bool = false,
        httpOnly: Bool = false, expires: Int64 = 0, name: String, value: String
    ) {
        self.domain = domain
        self.includeSubdomains = includeSubdomains
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.expires = expires
        self.name = name
        self.value = value
    }

    /// Whether the cookie ends with the browsing session rather than at a date.
    public var isSessionCookie: Bool { expires == 0 }

    /// Whether the cookie had expired at `now` (seconds since 1970).
    public func isExpired(at now: Int64) -> Bool { expires != 0 && expires <= now }
}

extension Cookie {
    private static let httpOnlyPrefix = "#HttpOnly_"

    /// Reads one line of libcurl's `CURLINFO_COOKIELIST`:
    /// `domain TAB tailmatch TAB path TAB secure TAB expires TAB name TAB value`.
    init?(netscapeLine line: String) {
        var text = Substring(line)
        var httpOnly = false
        if text.hasPrefix(Self.httpOnlyPrefix) {
            httpOnly = true
            text = text.dropFirst(Self.httpOnlyPrefix.count)
        } else if text.hasPrefix("#") {
            return nil
        }
        let fields = text.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false)
        guard fields.count >= 6, let expires = Int64(fields[4]) else { return nil }
        var domain = fields[0]
        if domain.hasPrefix(".") { domain = domain.dropFirst() }
        self.init(
            domain: domain.lowercased(), includeSubdomains: fields[1] == "TRUE", path: String(fields[2]),
            secure: fields[3] == "TRUE", httpOnly: httpOnly, expires: expires, name: String(fields[5]),
            value: fields.count > 6 ? String(fields[6]) : "")
    }

    /// The line that `CURLOPT_COOKIELIST` reads back as this cookie.
    var netscapeLine: String {
        let domainField = (includeSubdomains ? "." : "") + domain
        return [
            (httpOnly ? Self.httpOnlyPrefix : "") + domainField, includeSubdomains ? "TRUE" : "FALSE", path,
            secure ? "TRUE" : "FALSE", String(expires), name, value,
        ].joined(separator: "\t")
    }

    /// Whether the fields can be written as one Netscape line without changing meaning.
    var isRepresentable: Bool {
        let forbidden: (Unicode.Scalar) -> Bool = { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\0" }
        return !name.isEmpty && !domain.isEmpty
            && ![domain, path, name, value].contains { $0.unicodeScalars.contains(where: forbidden) }
    }
}
