import HTTPCore
import OAuthCore

/// The redirect back to the app: an authorization response (RFC 6749 §4.1.2) or an error
/// response (§4.1.2.1), with RFC 9207's `iss`.
public struct AuthorizationCallback: Sendable, Hashable {
    public var code: String?
    public var state: String?
    public var issuer: String?
    public var error: String?
    public var errorDescription: String?

    /// Parses the callback URL after checking it is for `redirectURI` (same scheme, host, port
    /// and path; a loopback redirect may use any port, RFC 8252 §7.3).
    public init(url: String, redirectURI: String) throws(SignInError) {
        guard let parts = URLParts(url), let expected = URLParts(redirectURI) else {
            throw SignInError(.invalidCallback, "the callback \"\(url.prefix(120))\" is not a URL")
        }
        let samePort = parts.port == expected.port || (expected.isLoopback && expected.scheme == "http")
        guard parts.scheme == expected.scheme, parts.host == expected.host, samePort,
            Self.normalizedPath(parts.path) == Self.normalizedPath(expected.path)
        else {
            throw SignInError(
                .invalidCallback,
                "the callback \(parts.scheme)://\(parts.host ?? "")\(parts.path) is not the redirect URI \(redirectURI)"
            )
        }
        let parameters: FormParameters
        do {
            parameters = try FormURLEncoding.decode(parts.query ?? "")
        } catch {
            throw SignInError(.invalidCallback, "the callback's query cannot be read: \(error.message)")
        }
        for name in [OAuthParameter.code, OAuthParameter.state, "iss", OAuthParameter.error]
        where parameters.values(for: name).count > 1 {
            throw SignInError(.invalidCallback, "the callback repeats \(name) (RFC 6749 §3.1)")
        }
        code = parameters[OAuthParameter.code]
        state = parameters[OAuthParameter.state]
        issuer = parameters["iss"]
        error = parameters[OAuthParameter.error]
        errorDescription = parameters[OAuthParameter.errorDescription]
    }

    private static func normalizedPath(_ path: String) -> String { path.isEmpty ? "/" : path }
}
