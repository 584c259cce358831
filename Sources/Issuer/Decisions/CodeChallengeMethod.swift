import Cryptography
import OAuthCore

/// How a `code_challenge` was derived from its verifier (RFC 7636 §4.2): the closed set of
/// methods the issuer can be told to accept.
enum CodeChallengeMethod: String, Sendable, Hashable {
    /// `BASE64URL(SHA256(ASCII(code_verifier)))`: the only method accepted unless the tenant
    /// deviates (RFC 9700 §2.1.1).
    case s256 = "S256"
    /// The challenge is the verifier itself; accepted only with `pkce-plain-allowed`.
    case plain

    /// The method of an authorization request's `code_challenge_method`, where a missing one
    /// means `plain` (RFC 7636 §4.3); `nil` for a method RFC 7636 does not define.
    init?(parameter: String?) {
        guard let parameter else {
            self = .plain
            return
        }
        self.init(rawValue: parameter)
    }

    /// Whether `challenge` is well formed for this method: 43 characters of base64url for S256
    /// (a SHA-256 digest), a valid verifier for plain (RFC 7636 §4.1, §4.2).
    func isWellFormed(challenge: String) -> Bool {
        switch self {
        case .s256: AuthorizationRequest.isSHA256Digest(challenge)
        case .plain: PKCE.isValidVerifier(challenge)
        }
    }

    /// The server's check (RFC 7636 §4.6): the verifier is well formed and, transformed by this
    /// method, equals the challenge; compared in constant time.
    func verify(verifier: String, matches challenge: String) -> Bool {
        switch self {
        case .s256:
            return PKCE.verify(verifier: verifier, matches: challenge)
        case .plain:
            guard PKCE.isValidVerifier(verifier) else { return false }
            return ConstantTime.equals(Array(verifier.utf8), Array(challenge.utf8))
        }
    }
}
