import HTTPCore

/// Which redirect URIs a native-app client may register and use (RFC 8252 §7, RFC 6749 §3.1.2).
enum RedirectURIPolicy {
    /// Why a redirect URI cannot be registered, or `nil` when it can.
    static func registrationProblem(_ uri: String) -> String? {
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
            return isLoopbackIP(parts.host)
                ? nil : "http redirect URIs are allowed only for loopback IP addresses (RFC 8252 §8.3)"
        default:
            // RFC 8252 §7.1: private-use schemes in reverse domain name notation.
            return parts.scheme.utf8.contains(UInt8(ascii: "."))
                ? nil
                : "private-use URI scheme \"\(parts.scheme.prefix(64))\" must be a reverse domain name (RFC 8252 §7.1)"
        }
    }

    /// Whether `requested` is one of `registered`: exact string comparison (RFC 6749 §3.1.2.3),
    /// except that a loopback redirect may use any port (RFC 8252 §7.3).
    /// A URI with user information never matches, even one registered before that was
    /// refused: `http://x@127.0.0.1/callback` names the loopback host, but reads to a person as
    /// a host `x`, and RFC 3986 §7.5 deprecates passwords in URIs.
    static func matches(_ requested: String, registered: [String]) -> Bool {
        if hasUserInfo(requested) { return false }
        if registered.contains(requested) { return true }
        guard let request = URLParts(requested), request.scheme == "http", isLoopbackIP(request.host) else {
            return false
        }
        return registered.contains { candidate in
            guard let registration = URLParts(candidate), registration.scheme == "http",
                registration.host == request.host
            else { return false }
            return registration.path == request.path && registration.query == request.query
                && registration.fragment == nil && request.fragment == nil
        }
    }

    /// Whether the URI's authority has user information (`user[:password]@`, RFC 3986 §3.2.1).
    /// Read from the raw text, since `URLParts` keeps only the host.
    static func hasUserInfo(_ uri: String) -> Bool {
        guard let authority = URLParts.authorityRange(of: uri) else { return false }
        return uri.utf8[authority].contains(UInt8(ascii: "@"))
    }

    /// RFC 8252 §7.3: the loopback IP literals (`localhost` is not recommended and not accepted).
    static func isLoopbackIP(_ host: String?) -> Bool {
        host == "127.0.0.1" || host == "[::1]"
    }
}
