/// Who may use a simulator's admin API (`/_admin/…`) over HTTP: programs on this machine,
/// never a web page, whatever site it was loaded from.
///
/// The admin API has no authentication; listening on loopback only is its protection, and a
/// browser is the one program on the machine that runs strangers' code against loopback. A
/// page has two ways in, and three rules close them:
///
/// - **DNS rebinding.** A page from `attacker.example` whose name is pointed at 127.0.0.1
///   after it loaded talks to the listener as its own origin, so the same-origin policy lets
///   it read the answers. Its requests still say `Host: attacker.example:PORT`, and a page
///   cannot change that (`Host` is a forbidden request-header name in the Fetch Standard).
///   So only a loopback `Host` is accepted (RFC 9110 §7.2): `localhost`, an IPv4 address of
///   127.0.0.0/8 or `[::1]`, with the service's port. Clients leave a scheme's default port
///   out (curl sends `Host: localhost` for `http://localhost/`), so a `Host` without a port
///   (or with an empty one) matches only a service on its scheme's default port, 80 or 443.
/// - **Cross-site "simple" requests.** Any page may send, without asking first, a request
///   whose method is CORS-safelisted (`GET`, `HEAD`, `POST`) and whose `Content-Type` is
///   `application/x-www-form-urlencoded`, `multipart/form-data` or `text/plain` (Fetch
///   Standard, CORS-safelisted request-header): a plain form post changes state even though
///   the page never reads the answer. So every admin `POST` must say
///   `Content-Type: application/json` (parameters such as `charset` allowed), which a browser
///   sends cross-origin only after a CORS preflight, and the preflight (`OPTIONS`) is refused,
///   with no `Access-Control-Allow-*` header. The other method admin routes take, `DELETE`,
///   is not safelisted and needs the preflight too.
/// - **`Origin`.** Browsers name the page's origin in `Origin` on cross-origin requests and on
///   every `POST`; any `Origin` other than the service's own loopback origin is refused,
///   `null` included.
///
/// A request with no `Host` at all comes neither from a browser, which always sends one, nor
/// over HTTP/1.1, which requires one (RFC 9112 §3.2): it is an in-process call of a service's
/// `respond(to:)` or an HTTP/1.0 tool on this machine, and the `Host` rule lets it through.
///
/// The OAuth endpoints need none of this: they are meant to be called from anywhere, and
/// answer nothing that is not the caller's own.
public struct LocalAdminPolicy: Hashable, Sendable {
    /// The scheme of the service's URL, lowercased (`http`).
    public let scheme: String
    /// The port the service is reached at: the URL's own, or its scheme's default.
    public let port: Int

    /// The policy of a service reached at `serviceURL` (`http://127.0.0.1:8080/apple`).
    public init(serviceURL: String) {
        let utf8 = serviceURL.utf8
        var scheme = "http"
        var port: Int?
        if let authority = URLParts.authorityRange(of: serviceURL) {
            scheme = serviceURL[..<utf8.index(authority.lowerBound, offsetBy: -3)].lowercased()
            var hostAndPort = serviceURL[authority]
            if let at = hostAndPort.lastIndex(of: "@") {
                hostAndPort = hostAndPort[hostAndPort.index(after: at)...]
            }
            port = Self.split(hostAndPort)?.port
        }
        self.scheme = scheme
        self.port = port ?? (scheme == "https" ? 443 : 80)
    }

    /// Why the request may not use the admin API, or `nil` when it may.
    public func refusal(of request: HTTPRequest) -> AdminRefusal? {
        let hosts = request.headers.values(for: "Host")
        if hosts.count > 1 {
            return AdminRefusal(status: 403, error: "forbidden", description: "more than one Host header")
        }
        if let host = hosts.first, !isLoopback(authority: Substring(host)) {
            return AdminRefusal(
                status: 403, error: "forbidden",
                description:
                    "the admin API answers only Host localhost, 127.0.0.1 or [::1] with port \(port), "
                    + "not \(Self.quoted(host))")
        }
        for origin in request.headers.values(for: "Origin") where !isLoopback(origin: origin) {
            return AdminRefusal(
                status: 403, error: "forbidden",
                description:
                    "the admin API answers no Origin but its own loopback one, not \(Self.quoted(origin))")
        }
        if request.method == .options {
            return AdminRefusal(
                status: 403, error: "forbidden", description: "the admin API answers no CORS preflight")
        }
        if request.method == .post, request.mediaType != MediaType.json {
            return AdminRefusal(
                status: 415, error: "unsupported_media_type",
                description: "an admin POST must have Content-Type application/json, not "
                    + (request.headers["Content-Type"].map(Self.quoted) ?? "none"))
        }
        return nil
    }

    /// Whether `origin` is `scheme://` this service's scheme and a loopback authority with its port.
    private func isLoopback(origin: String) -> Bool {
        let prefix = scheme + "://"
        guard origin.count > prefix.count, origin.lowercased().hasPrefix(prefix) else { return false }
        return isLoopback(authority: origin.dropFirst(prefix.count))
    }

    /// Whether `host[:port]` names loopback and this service's port.
    private func isLoopback(authority: Substring) -> Bool {
        guard let (host, explicitPort) = Self.split(authority.trimmingSpaces()[...]) else { return false }
        guard (explicitPort ?? (scheme == "https" ? 443 : 80)) == port else { return false }
        return Self.isLoopbackHost(host)
    }

    /// `localhost`, `[::1]`, or an IPv4 address of 127.0.0.0/8 in dotted-decimal.
    static func isLoopbackHost(_ host: Substring) -> Bool {
        if String(host).caseInsensitiveEquals("localhost") || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        let octets = parts.map { part -> Int? in
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return nil
            }
            return Int(part).flatMap { $0 <= 255 ? $0 : nil }
        }
        return octets.allSatisfy { $0 != nil } && octets[0] == 127
    }

    /// `host` and the port of `host[:port]` (`[v6]:port` too); `nil` port when absent or empty,
    /// `nil` altogether when the port is not a number in 0...65535.
    static func split(_ authority: Substring) -> (host: Substring, port: Int?)? {
        var host = authority
        var portText: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        if portText.isEmpty { return (host, nil) }
        guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let port = Int(portText), port <= 65535
        else { return nil }
        return (host, port)
    }

    /// A header value for an error description: at most 100 characters, in quotes.
    private static func quoted(_ value: String) -> String {
        "\"" + String(value.prefix(100)) + "\""
    }
}

/// Why `LocalAdminPolicy` refused a request: each service answers it in its own error shape,
/// `{"error": error, "error_description": description}` with this status.
public struct AdminRefusal: Hashable, Sendable {
    /// 403 for a `Host`, an `Origin` or a method that is not allowed, 415 for a `POST` that is
    /// not `application/json`.
    public let status: Int
    /// `forbidden` or `unsupported_media_type`.
    public let error: String
    public let description: String
}
