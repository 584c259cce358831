import HTTPCore

/// Which URL ends a web authentication session: `ASWebAuthenticationSession.Callback`
/// (`.customScheme`, `.https(host:path:)`) plus the loopback redirect of RFC 8252 §7.3.
public enum WebAuthenticationCallback: Hashable, Sendable, CustomStringConvertible {
    /// Any URL of a private-use scheme (RFC 8252 §7.1), such as `com.example.app`.
    case customScheme(String)
    /// A claimed HTTPS URL (RFC 8252 §7.2): this host and exactly this path.
    case https(host: String, path: String)
    /// `http://127.0.0.1` or `http://[::1]` with this path (RFC 8252 §7.3); `port` nil accepts
    /// any port, as the app may listen on an ephemeral one.
    case loopback(port: Int?, path: String)
    /// `http://localhost` with this path, on this port or (nil) any: an app listening on the
    /// name rather than the address, which RFC 8252 §8.3 does not recommend but some native
    /// clients do (oidc-agent), and some issuers accept.
    case localhost(port: Int?, path: String)

    /// The callback a redirect URI stands for: its scheme when private-use, its host and path
    /// when https, its port and path when an http loopback address; `nil` for anything else.
    public init?(redirectURI: String) {
        guard let parts = URLParts(redirectURI) else { return nil }
        switch parts.scheme {
        case "https":
            guard let host = parts.host, !host.isEmpty else { return nil }
            self = .https(host: host, path: parts.path.isEmpty ? "/" : parts.path)
        case "http" where parts.host == "localhost":
            self = .localhost(port: parts.port, path: parts.path.isEmpty ? "/" : parts.path)
        case "http":
            guard Self.isLoopbackLiteral(parts.host) else { return nil }
            self = .loopback(port: parts.port, path: parts.path.isEmpty ? "/" : parts.path)
        default:
            self = .customScheme(parts.scheme)
        }
    }

    /// Whether `url` (absolute) is this callback.
    public func matches(_ url: String) -> Bool {
        guard let parts = URLParts(url) else { return false }
        let path = parts.path.isEmpty ? "/" : parts.path
        switch self {
        case .customScheme(let scheme):
            return parts.scheme.caseInsensitiveEquals(scheme)
        case .https(let host, let expectedPath):
            return parts.scheme == "https" && parts.host == host.lowercased() && parts.port == nil
                && path == expectedPath
        case .loopback(let port, let expectedPath):
            return parts.scheme == "http" && Self.isLoopbackLiteral(parts.host)
                && (port == nil || parts.port == port) && path == expectedPath
        case .localhost(let port, let expectedPath):
            return parts.scheme == "http" && parts.host == "localhost" && (port == nil || parts.port == port)
                && path == expectedPath
        }
    }

    /// RFC 8252 §8.3: loopback redirects use IP literals; `localhost` is not recommended.
    private static func isLoopbackLiteral(_ host: String?) -> Bool {
        host == "127.0.0.1" || host == "[::1]" || host == "::1"
    }

    public var description: String {
        switch self {
        case .customScheme(let scheme): "\(scheme):"
        case .https(let host, let path): "https://\(host)\(path)"
        case .loopback(let port, let path): "http://127.0.0.1\(port.map { ":\($0)" } ?? ":*")\(path)"
        case .localhost(let port, let path): "http://localhost\(port.map { ":\($0)" } ?? ":*")\(path)"
        }
    }
}
