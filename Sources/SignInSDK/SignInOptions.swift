/// What the app passes to `configure(options:)` (docs/sdk.md).
public struct SignInOptions: Sendable, Hashable {
    /// The issuer identifier; discovery is read from `<issuer>/.well-known/openid-configuration`.
    public var issuer: String
    public var clientID: String
    public var redirectURI: String
    public var scopes: [String]
    /// Only for issuers that have no public clients; a native app normally has no secret.
    public var clientSecret: String?
    /// How the secret is sent (RFC 6749 §2.3.1, OpenID Connect Discovery
    /// `token_endpoint_auth_methods_supported`): `.basic` or `.post`; `nil` picks HTTP Basic
    /// unless the issuer only takes the secret in the body.
    public var clientAuthentication: ClientAuthentication?
    /// Sent as `audience` on the authorize and token requests when set (Auth0's API selector).
    public var audience: String?
    /// `prefersEphemeralWebBrowserSession` (the default: no SSO cookie survives sign-out).
    public var prefersEphemeralSession: Bool
    /// Seconds of clock skew tolerated on an ID token's `exp` (and `nbf`); `nil` keeps the
    /// profile's: 60 s by default (Auth0.swift's), 0 s with `appauth-clock` and `strict-clock`.
    /// Must not be negative.
    public var leeway: Int64?
    /// A session is refreshed when it expires within this many seconds.
    public var refreshMargin: Int64
    /// Binds tokens to a key of the device with DPoP (RFC 9449).
    public var usesDPoP: Bool
    /// The faults switched on (the default is correct behaviour).
    public var profile: BehaviorProfile
    /// Requests of the end-session endpoint name this URI to come back to, when set.
    public var postLogoutRedirectURI: String?

    public init(
        issuer: String, clientID: String, redirectURI: String,
        scopes: [String] = ["openid", "profile", "email", "offline_access"], clientSecret: String? = nil,
        audience: String? = nil, prefersEphemeralSession: Bool = true, leeway: Int64? = nil,
        refreshMargin: Int64 = 60, usesDPoP: Bool = false,
        profile: BehaviorProfile = .default, postLogoutRedirectURI: String? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.clientSecret = clientSecret
        self.audience = audience
        self.prefersEphemeralSession = prefersEphemeralSession
        self.leeway = leeway
        self.refreshMargin = refreshMargin
        self.usesDPoP = usesDPoP
        self.profile = profile
        self.postLogoutRedirectURI = postLogoutRedirectURI
    }

    /// The ID token clock rules in force: the profile's (`BehaviorProfile.clockTolerance`),
    /// with `leeway` on `exp` when the app set one.
    public var clockTolerance: ClockTolerance { profile.clockTolerance.withExpiryLeeway(leeway) }

    /// Ways a client sends its secret to the token endpoint (OpenID Connect Core §9).
    public enum ClientAuthentication: String, Sendable, Hashable {
        /// `client_secret_basic`: the `Authorization: Basic` header.
        case basic = "client_secret_basic"
        /// `client_secret_post`: `client_secret` in the form body.
        case post = "client_secret_post"
    }
}

/// Per-call options of `signIn(options:)`: extra authorize parameters the caller may set.
///
/// The parameters the SDK owns (`response_type`, `client_id`, `redirect_uri`, `scope`, `state`,
/// `nonce`, `code_challenge`, `code_challenge_method`) cannot be overridden from here.
public struct SignInRequestOptions: Sendable, Hashable {
    /// `prompt` (OpenID Connect Core §3.1.2.1): `login`, `none`, `consent`.
    public var prompt: String?
    public var loginHint: String?
    public var maxAge: Int?
    /// Replaces the configured scopes for this sign-in.
    public var scopes: [String]?
    public var additionalParameters: [String: String]

    public init(
        prompt: String? = nil, loginHint: String? = nil, maxAge: Int? = nil, scopes: [String]? = nil,
        additionalParameters: [String: String] = [:]
    ) {
        self.prompt = prompt
        self.loginHint = loginHint
        self.maxAge = maxAge
        self.scopes = scopes
        self.additionalParameters = additionalParameters
    }

    /// Parameters the SDK sets itself and a caller cannot replace.
    public static let reservedParameters: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method",
    ]
}
