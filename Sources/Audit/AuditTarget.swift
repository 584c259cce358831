public import HTTPCore
public import JOSE
public import OAuthCore
public import WorldVocabulary

/// A client registration the audit plays: its id and how it authenticates at the token
/// endpoint.
public struct AuditClient: Sendable, Hashable {
    public var id: String
    /// `nil` for a public client (a native app, RFC 8252 §8.4).
    public var secret: String?
    /// The private key of a `private_key_jwt` client (RFC 7523 §2.2, OpenID Connect Core §9),
    /// which signs a fresh assertion for every request that authenticates.
    public var key: JWK?
    /// What the assertions put in `aud`: the issuer by default, or the token endpoint's URL.
    public var assertionAudience: ClientAssertion.Audience
    /// How it authenticates; `nil` picks from the key, the secret and discovery
    /// (`private_key_jwt` with a key, else `client_secret_basic` unless only
    /// `client_secret_post` is advertised; `none` without a secret).
    public var method: TokenEndpointAuthMethod?

    public init(
        id: String, secret: String? = nil, key: JWK? = nil,
        assertionAudience: ClientAssertion.Audience = .issuer,
        method: TokenEndpointAuthMethod? = nil
    ) {
        self.id = id
        self.secret = secret
        self.key = key
        self.assertionAudience = assertionAudience
        self.method = method
    }

    /// Whether the client has credentials of its own (a secret or a key), RFC 6749 §2.1.
    public var isConfidential: Bool { secret != nil || key != nil }
}

/// What the audit is pointed at, and with what: the issuer, the app's registration, the test
/// user, and the limits it keeps to.
public struct AuditTarget: Sendable {
    public var issuer: String
    public var client: AuditClient
    /// A second registration at the same issuer, for the checks that a code or refresh token of
    /// one client is refused to another (`--other-client-id`); those checks are skipped without it.
    public var otherClient: AuditClient?
    public var redirectURI: String
    /// A registered `http://127.0.0.1…` or `http://[::1]…` redirect URI, for the loopback checks
    /// (RFC 8252 §7.3); the redirect URI itself when it is one.
    public var loopbackRedirectURI: String?
    /// A registered private-use scheme redirect URI (RFC 8252 §7.1), for the check that one gets
    /// the code; the redirect URI itself when it is one.
    public var privateUseRedirectURI: String?
    /// A registered post-logout redirect URI, for the logout checks.
    public var postLogoutRedirectURI: String?
    public var scopes: [String]
    /// Auth0's `audience`, sent at authorize and token.
    public var audience: String?
    /// Other authorization request parameters the issuer needs.
    public var authorizationParameters: [String: String]
    /// The test user, as the sheet's person: only this user's sessions and tokens are touched.
    public var person: WebUserScript
    public var engine: BrowserEngine
    /// The checks to run; the others are reported as skipped, not selected.
    public var selection: Set<AuditCheck>
    /// Whether the code-lifetime check may wait out ten minutes for real (against the embedded
    /// issuer the world's clock is moved instead).
    public var waitsForCodeExpiry: Bool
    /// The most requests the audit sends; it stops when the next would exceed it.
    public var maximumRequests: Int
    /// How many transport failures in a row stop the audit.
    public var maximumFailureStreak: Int
    /// How long the audit lets a real issuer settle after the two requests of the refresh race,
    /// before it asks what they left (none against the embedded issuer, which answers in order).
    public var racePause: Duration

    public init(
        issuer: String, client: AuditClient, redirectURI: String, person: WebUserScript,
        engine: BrowserEngine = .lite
    ) {
        self.issuer = issuer
        self.client = client
        self.redirectURI = redirectURI
        self.person = person
        self.engine = engine
        self.otherClient = nil
        self.loopbackRedirectURI = RedirectURIVariants.isLoopback(redirectURI) ? redirectURI : nil
        self.privateUseRedirectURI = RedirectURIVariants.isPrivateUse(redirectURI) ? redirectURI : nil
        self.postLogoutRedirectURI = nil
        self.scopes = ["openid", "profile", "email", "offline_access"]
        self.audience = nil
        self.authorizationParameters = [:]
        self.selection = Set(AuditCheck.allCases)
        self.waitsForCodeExpiry = false
        self.maximumRequests = 600
        self.maximumFailureStreak = 3
        self.racePause = .zero
    }
}
