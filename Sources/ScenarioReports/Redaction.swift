/// Which secrets a HAR capture hides before it is written.
///
/// A HAR of a sign-in holds everything a thief needs, yet it is what people attach to bug
/// reports and CI keeps as an artefact. Secrets are therefore replaced by default, with
/// Betamax-style placeholders (`<REDACTED:password>`) rather than removed: the document stays
/// valid HAR, and a reader still sees that a password was sent, and where.
///
/// Short-lived, single-use or public values (authorization codes, ID tokens, DPoP proofs) are
/// kept: they are what a failing sign-in is debugged from. Refresh tokens and PKCE verifiers
/// are kept unless asked, for the same reason; turn them on for captures that leave the team.
public struct Redaction: Hashable, Sendable {
    /// Form, JSON and query parameters whose name ends in `password` (`password`,
    /// `new_password`).
    public var passwords: Bool
    /// `client_secret` (RFC 6749 §2.3.1) and `client_assertion` (RFC 7523 §2.2): a signed
    /// assertion is a credential until it expires.
    public var clientSecrets: Bool
    /// The credentials of `Authorization: Basic` (RFC 7617), client or user.
    public var basicCredentials: Bool
    /// The private members of JWKs in JSON bodies (RFC 7518 §6.2.2, §6.3.2: `d`, `p`, `q`, `dp`,
    /// `dq`, `qi`, `oth`; `k` of a symmetric key, §6.4.1), such as a DPoP key pair.
    public var privateKeys: Bool
    /// `code_verifier` (RFC 7636 §4.5). Off by default: it is worthless once its code is spent.
    public var codeVerifiers: Bool
    /// `refresh_token` in requests and token responses (RFC 6749 §6). Off by default.
    public var refreshTokens: Bool

    public init(
        passwords: Bool = true, clientSecrets: Bool = true, basicCredentials: Bool = true,
        privateKeys: Bool = true, codeVerifiers: Bool = false, refreshTokens: Bool = false
    ) {
        self.passwords = passwords
        self.clientSecrets = clientSecrets
        self.basicCredentials = basicCredentials
        self.privateKeys = privateKeys
        self.codeVerifiers = codeVerifiers
        self.refreshTokens = refreshTokens
    }

    /// Passwords, client secrets and assertions, Basic credentials and private keys.
    public static let `default` = Redaction()

    /// Nothing hidden: for captures that never leave the machine.
    public static let disabled = Redaction(
        passwords: false, clientSecrets: false, basicCredentials: false, privateKeys: false)

    /// Every secret this type knows, refresh tokens and code verifiers included.
    public static let everything = Redaction(codeVerifiers: true, refreshTokens: true)

    /// What replaces a hidden value: `<REDACTED:name>`, naming what was there.
    public static func placeholder(for name: String) -> String { "<REDACTED:\(name)>" }

    /// Whether the value of a form, JSON or query parameter with this name is hidden.
    public func hidesParameter(named name: String) -> Bool {
        let name = name.lowercased()
        if passwords, name.hasSuffix("password") { return true }
        switch name {
        case "client_secret", "client_assertion": return clientSecrets
        case "code_verifier": return codeVerifiers
        case "refresh_token": return refreshTokens
        default: return false
        }
    }

    /// Whether a member of a JWK (a JSON object with `kty`) is private key material.
    public func hidesKeyMember(named name: String, keyType: String) -> Bool {
        guard privateKeys else { return false }
        switch name {
        case "d", "p", "q", "dp", "dq", "qi", "oth": return true
        case "k": return keyType == "oct"
        default: return false
        }
    }
}
