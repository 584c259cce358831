import Foundation

/// The parts of an absolute URL (RFC 3986 §3), with percent-encoding left intact.
///
/// Works for custom schemes (`com.example.app://auth/callback?code=…`, `com.example.app:/cb`)
/// as well as `http` and `https`, which matters for native-app redirect URIs (RFC 8252 §7.1).
public struct URLParts: Hashable, Sendable {
    public var scheme: String
    public var host: String?
    public var port: Int?
    public var path: String
    public var query: String?
    public var fragment: String?

    /// Parses an absolute URL; `nil` when it has no scheme or is not a URL.
    public init?(_ string: String) {
        guard let components = URLComponents(string: string), let scheme = components.scheme else {
            return nil
        }
        self.scheme = scheme.lowercased()
        self.host = components.percentEncodedHost.map { $0.lowercased() }
        self.port = components.port
        self.path = components.percentEncodedPath
        self.query = components.percentEncodedQuery
        self.fragment = components.percentEncodedFragment
    }

    /// `scheme://host[:port]`, or `nil` without a host.
    public var origin: String? {
        guard let host else { return nil }
        return port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// Whether the host is a loopback literal (RFC 8252 §7.3 and §8.3: `127.0.0.1` or `[::1]`).
    public var isLoopback: Bool {
        guard let host else { return false }
        return host == "127.0.0.1" || host == "[::1]" || host == "::1" || host == "localhost"
    }

    /// The path of any URL or request target, without query and fragment; `/` when empty.
    public static func path(of url: String) -> String {
        var rest = Substring(stripQueryAndFragment(url))
        if let schemeEnd = rest.range(of: "://") {
            rest = rest[schemeEnd.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return "/" }
            rest = rest[slash...]
        }
        return rest.isEmpty ? "/" : String(rest)
    }

    /// The raw query string of any URL, or `nil`.
    public static func query(of url: String) -> String? {
        guard let question = url.firstIndex(of: "?") else { return nil }
        let afterQuestion = url[url.index(after: question)...]
        if let hash = afterQuestion.firstIndex(of: "#") { return String(afterQuestion[..<hash]) }
        return String(afterQuestion)
    }

    /// The URL with query and fragment removed.
    public static func stripQueryAndFragment(_ url: String) -> String {
        if let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) { return String(url[..<cut]) }
        return url
    }
}
