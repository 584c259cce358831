import HTTPCore

/// Which redirect URIs a native-app client may register and use (RFC 8252 §7, RFC 6749 §3.1.2).
///
/// Each decision takes the tenant's deviations: the ones of `IssuerDeviation`'s authorization
/// group loosen one rule each, and change nothing else.
enum RedirectURIPolicy {
    /// Why a redirect URI cannot be registered, or `nil` when it can.
    ///
    /// With `allow-localhost-redirects`, `http://localhost…` may be registered too (RFC 8252
    /// §8.3: NOT RECOMMENDED).
    static func registrationProblem(_ uri: String, deviations: Set<IssuerDeviation>) -> String? {
        guard let parts = URLParts(uri) else {
            return "redirect URI \"\(uri.prefix(200))\" is not an absolute URI"
        }
        if parts.fragment != nil {
            return "redirect URI \"\(uri.prefix(200))\" must not have a fragment (RFC 6749 §3.1.2)"
        }
        if hasUserInfo(uri) {
            return "redirect URI \"\(uri.prefix(200))\" must not have user information before the host "
                + "(RFC 3986 §3.2.1, §7.5; RFC 8252 §7.3)"
        }
        switch parts.scheme {
        case "https": return nil
        case "http":
            return isLoopbackIP(parts.host) || isAcceptedLocalhost(parts.host, deviations: deviations)
                ? nil : "http redirect URIs are allowed only for loopback IP addresses (RFC 8252 §8.3)"
        default:
            // RFC 8252 §7.1: private-use schemes in reverse domain name notation.
            return parts.scheme.utf8.contains(UInt8(ascii: "."))
                ? nil
                : "private-use URI scheme \"\(parts.scheme.prefix(64))\" must be a reverse domain name (RFC 8252 §7.1)"
        }
    }

    /// Whether `requested` is one of `registered`: exact string comparison (RFC 6749 §3.1.2.3,
    /// RFC 9700 §4.1.3), except that a loopback redirect may use any port (RFC 8252 §7.3).
    /// A URI with user information never matches, even one registered before that was
    /// refused: `http://x@127.0.0.1/callback` names the loopback host, but reads to a person as
    /// a host `x`, and RFC 3986 §7.5 deprecates passwords in URIs.
    ///
    /// The deviations each add one kind of near miss that matches (`IssuerDeviation`):
    /// `redirect-uri-user-info` compares the URI without its user information,
    /// `redirect-uri-extra-path`, `-trailing-slash`, `-extra-query` and `-case-insensitive`
    /// accept their variation of a registered URI, `loopback-port-exact` takes the port-free
    /// loopback rule away, and `allow-localhost-redirects` accepts `http://localhost` for a
    /// registered loopback IP. `private-use-redirects-refused` takes one kind away: a
    /// private-use scheme matches nothing.
    static func matches(_ requested: String, registered: [String], deviations: Set<IssuerDeviation>) -> Bool {
        if deviations.contains(.privateUseRedirectsRefused), let scheme = URLParts(requested)?.scheme,
            scheme != "http", scheme != "https"
        {
            return false
        }
        if hasUserInfo(requested) {
            guard deviations.contains(.redirectURIUserInfo), let bare = withoutUserInfo(requested) else {
                return false
            }
            var others = deviations
            others.remove(.redirectURIUserInfo)
            return matches(bare, registered: registered, deviations: others)
        }
        if registered.contains(requested) { return true }
        if registered.contains(where: { isVariation(requested, of: $0, deviations: deviations) }) {
            return true
        }
        guard let request = URLParts(requested), request.scheme == "http",
            isLoopbackIP(request.host) || isAcceptedLocalhost(request.host, deviations: deviations)
        else {
            return false
        }
        return registered.contains { candidate in
            guard let registration = URLParts(candidate), registration.scheme == "http",
                registration.host == request.host
                    || (request.host == localhost && isLoopbackIP(registration.host))
            else { return false }
            // RFC 8252 §7.3: any port, unless the tenant deviates.
            if deviations.contains(.loopbackPortExact), registration.port != request.port { return false }
            return registration.path == request.path && registration.query == request.query
                && registration.fragment == nil && request.fragment == nil
        }
    }

    /// Whether `requested` is `registered` changed in a way one of the deviations accepts
    /// (RFC 9700 §4.1.3 forbids them all: exact string matching).
    static func isVariation(_ requested: String, of registered: String, deviations: Set<IssuerDeviation>)
        -> Bool
    {
        let (registeredBase, registeredQuery) = splitQuery(registered)
        let (requestedBase, requestedQuery) = splitQuery(requested)
        let hasFragment = requested.utf8.contains(UInt8(ascii: "#"))
        if deviations.contains(.redirectURIExtraPath), !hasFragment, requestedQuery == registeredQuery {
            // Prefix matching of the path: more segments after the registered path, but not a
            // bare trailing slash (that is `redirect-uri-trailing-slash`).
            let prefix = registeredBase.hasSuffix("/") ? registeredBase : registeredBase + "/"
            if requestedBase.hasPrefix(prefix), requestedBase.utf8.count > prefix.utf8.count { return true }
        }
        if deviations.contains(.redirectURITrailingSlash), !hasFragment, requestedQuery == registeredQuery,
            requestedBase == registeredBase + "/"
        {
            return true
        }
        if deviations.contains(.redirectURIExtraQuery), !hasFragment {
            let separator = registeredQuery == nil ? "?" : "&"
            let prefix = registered + separator
            if requested.hasPrefix(prefix), requested.utf8.count > prefix.utf8.count { return true }
        }
        if deviations.contains(.redirectURICaseInsensitive), requested.caseInsensitiveEquals(registered) {
            return true
        }
        return false
    }

    /// The URI before its first `?`, and the query after it (a fragment stays in the query).
    private static func splitQuery(_ uri: String) -> (base: Substring, query: Substring?) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri[...], nil) }
        return (uri[..<mark], uri[uri.index(after: mark)...])
    }

    /// Whether the URI's authority has user information (`user[:password]@`, RFC 3986 §3.2.1).
    /// Read from the raw text, since `URLParts` keeps only the host.
    static func hasUserInfo(_ uri: String) -> Bool {
        guard let authority = URLParts.authorityRange(of: uri) else { return false }
        return uri.utf8[authority].contains(UInt8(ascii: "@"))
    }

    /// The URI with the user information of its authority (up to the last `@`) removed, or `nil`
    /// when it has none (RFC 3986 §3.2.1).
    static func withoutUserInfo(_ uri: String) -> String? {
        guard let authority = URLParts.authorityRange(of: uri),
            let at = uri[authority].lastIndex(of: "@")
        else { return nil }
        return String(uri[..<authority.lowerBound]) + String(uri[uri.index(after: at)...])
    }

    /// RFC 8252 §7.3: the loopback IP literals (`localhost` is not recommended and not accepted,
    /// unless the tenant deviates: `isAcceptedLocalhost`).
    static func isLoopbackIP(_ host: String?) -> Bool {
        host == "127.0.0.1" || host == "[::1]"
    }

    /// The host name RFC 8252 §8.3 says not to use for loopback redirects.
    static let localhost = "localhost"

    /// Whether `host` is `localhost` and the tenant accepts it (`allow-localhost-redirects`).
    static func isAcceptedLocalhost(_ host: String?, deviations: Set<IssuerDeviation>) -> Bool {
        host == localhost && deviations.contains(.allowLocalhostRedirects)
    }
}
