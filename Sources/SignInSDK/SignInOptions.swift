public import JOSE
public import OAuthCore

/// What the app passes to `configure(options:)` (docs/sdk.md).
///
/// Everything a client registration at an issuer has is here: the issuer, the client id and
/// redirect URI, how the client authenticates, the scopes, and the authorization request's
/// own parameters (`prompt`, `login_hint`, `ui_locales`, `organization`, `max_age`,
/// `acr_values`, and any other the issuer defines).
public struct SignInOptions: Sendable, Hashable {
    /// The issuer identifier; discovery is read from `<issuer>/.well-known/openid-configuration`.
    public var issuer: String
    public var clientID: String
    public var redirectURI: String
    public var scopes: [String]
    /// Only for issuers that have no public clients; a native app normally has no secret.
    public var clientSecret: String?
    /// How the client authenticates at the token endpoint; `nil` chooses (docs/sdk.md, "Client
    /// authentication"): `private_key_jwt` with a key, else with a secret `client_secret_basic`
    /// unless discovery lists only `client_secret_post`, else `none`.
    public var clientAuthentication: ClientAuthentication?
    /// The client's private key for `private_key_jwt` (RFC 7523 §2.2): a private JWK, whose
    /// `alg` (or its type: ES256 for P-256, RS256 for RSA) signs, and whose `kid` is named.
    public var clientKey: JWK?
    /// What a `private_key_jwt` assertion names as `aud`: the issuer identifier
    /// (draft-ietf-oauth-rfc7523bis §2, the default) or the token endpoint URL (OpenID Connect
    /// Core §9's older recommendation, which some providers still require).
    public var clientAssertionAudience: ClientAssertion.Audience
    /// Sent as `audience` on the authorize and token requests when set (Auth0's API selector).
    public var audience: String?
    /// `prompt` (OpenID Connect Core §3.1.2.1): by default `consent` when the scopes ask for
    /// `offline_access` (Core §11), else none.
    public var prompt: Prompt
    /// `login_hint` (OpenID Connect Core §3.1.2.1): the account to preselect.
    public var loginHint: String?
    /// `ui_locales` (OpenID Connect Core §3.1.2.1): BCP 47 tags, space-separated, preferred first.
    public var uiLocales: String?
    /// `organization`: the organization to sign in to (Auth0 Organizations).
    public var organization: String?
    /// `max_age` (OpenID Connect Core §3.1.2.1): the longest time since the user last
    /// authenticated, in seconds; the ID token then carries `auth_time`.
    public var maxAge: Int?
    /// `acr_values` (OpenID Connect Core §3.1.2.1): requested Authentication Context Class
    /// References, space-separated, preferred first.
    public var acrValues: String?
    /// Other authorization request parameters, as AppAuth's `additionalParameters`. Names the
    /// SDK sets itself or has an option for are refused at `configure` (`reservedParameters`).
    public var authorizationParameters: [String: String]
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
        self.clientAssertionAudience = .issuer
        self.audience = audience
        self.prompt = .automatic
        self.authorizationParameters = [:]
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

    /// Ways a client authenticates at the token endpoint (OpenID Connect Core §9).
    public typealias ClientAuthentication = TokenEndpointAuthMethod

    /// The `prompt` of the authorization request (OpenID Connect Core §3.1.2.1, §11).
    public enum Prompt: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// `consent` when the request's scopes include `offline_access`, else no `prompt`.
        ///
        /// OpenID Connect Core §11: a client asking for offline access MUST send
        /// `prompt=consent` unless other conditions permit offline access, and the provider
        /// MUST ignore `offline_access` otherwise. Providers that follow it to the letter
        /// drop the scope (panva's oidc-provider) or refuse the request (authentik) without
        /// it; those that permit offline access on other grounds ignore it (Keycloak unless
        /// the client requires consent, Okta unless its consent policy asks) or show their
        /// consent page (django-oidc-provider).
        case automatic
        /// No `prompt` parameter.
        case omitted
        /// These values, space-separated, in this order (`login`, `consent`, `none`,
        /// `select_account`, `create`, or one the issuer defines).
        case values([String])

        /// The keyword that means "send no prompt", where a prompt is written as text.
        public static let omitKeyword = "omit"

        /// A prompt as written on a command line or in a scenario: empty (or only spaces) is
        /// `automatic`, `omit` is `omitted`, anything else the values it lists.
        public init(text: String) {
            let values = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if values.isEmpty {
                self = .automatic
            } else if values == [Self.omitKeyword] {
                self = .omitted
            } else {
                self = .values(values)
            }
        }

        /// A literal reads as `init(text:)` does: `"login consent"`, `"omit"`.
        public init(stringLiteral text: String) { self.init(text: text) }

        /// The values sent for a request asking for `scopes`.
        public func resolved(scopes: [String]) -> [String] {
            switch self {
            case .automatic: scopes.contains(StandardScope.offlineAccess) ? ["consent"] : []
            case .omitted: []
            case .values(let values): values
            }
        }

        public var description: String {
            switch self {
            case .automatic: "automatic"
            case .omitted: Self.omitKeyword
            case .values(let values): values.joined(separator: " ")
            }
        }
    }

    /// Authorization request parameters the SDK sets itself, or has an option for; an
    /// `authorizationParameters` (or per-call `additionalParameters`) entry naming one is
    /// refused, with the option to use instead where there is one.
    public static let reservedParameters: [String: String?] = [
        OAuthParameter.responseType: nil, OAuthParameter.clientID: nil, OAuthParameter.redirectURI: nil,
        OAuthParameter.state: nil, OAuthParameter.nonce: nil,
        OAuthParameter.codeChallenge: nil, OAuthParameter.codeChallengeMethod: nil,
        OAuthParameter.scope: "scopes", OAuthParameter.audience: "audience",
        OAuthParameter.prompt: "prompt", OAuthParameter.loginHint: "loginHint",
        OAuthParameter.uiLocales: "uiLocales",
        "organization": "organization", OAuthParameter.maxAge: "maxAge", "acr_values": "acrValues",
    ]

    /// Why a parameter name cannot be set as an extra authorization parameter, or `nil`.
    public static func reservedParameterProblem(_ name: String) -> String? {
        guard !name.isEmpty else { return "an authorization parameter has an empty name" }
        guard let option = reservedParameters[name] else { return nil }
        if let option {
            return "the authorization parameter \"\(name)\" has its own option (\(option)); set it there"
        }
        return "the authorization parameter \"\(name)\" is set by the SDK itself and cannot be replaced"
    }
}

/// Per-call options of `signIn(options:)`: what one sign-in asks differently from the
/// configured client.
///
/// The parameters the SDK owns (`response_type`, `client_id`, `redirect_uri`, `state`,
/// `nonce`, `code_challenge`, `code_challenge_method`) cannot be set from here; a sign-in whose
/// `additionalParameters` names one of them, or one with its own option, fails with
/// `invalid_configuration`.
public struct SignInRequestOptions: Sendable, Hashable {
    /// Replaces the configured `prompt` for this sign-in (`nil`: the configured one).
    public var prompt: SignInOptions.Prompt?
    /// Replaces the configured `login_hint` for this sign-in.
    public var loginHint: String?
    /// Replaces the configured `max_age` for this sign-in.
    public var maxAge: Int?
    /// Replaces the configured scopes for this sign-in.
    public var scopes: [String]?
    /// Added to (and, name for name, replacing) the configured `authorizationParameters`.
    public var additionalParameters: [String: String]

    public init(
        prompt: SignInOptions.Prompt? = nil, loginHint: String? = nil, maxAge: Int? = nil,
        scopes: [String]? = nil, additionalParameters: [String: String] = [:]
    ) {
        self.prompt = prompt
        self.loginHint = loginHint
        self.maxAge = maxAge
        self.scopes = scopes
        self.additionalParameters = additionalParameters
    }
}
