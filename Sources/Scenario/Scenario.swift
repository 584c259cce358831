public import HTTPCore
public import JSON
public import SignInSDK
public import YAML

/// One scenario file, parsed and checked: the world to build (issuer, device, apps) and the
/// steps to replay in it. Environment variables are already substituted and `runFlow`
/// includes already inlined, so running it reads nothing else.
public struct Scenario: Hashable, Sendable {
    public var name: String
    /// What the scenario proves, for the people reading the report.
    public var description: String
    public var tags: [String]
    /// The variables after `-e` overrides, as the steps saw them.
    public var env: [String: String]
    /// The world's seed; the run's `--seed` applies when this is nil.
    public var seed: UInt64?
    public var issuer: IssuerTarget
    public var device: DeviceSetup
    /// The apps on the device; the first is the one steps act on unless they name another.
    public var apps: [AppSetup]
    public var steps: [Step]
    /// Wall-clock limit for the whole scenario, in seconds (`timeout`).
    public var timeLimitSeconds: Double?
    /// The engine of the apps' web sheets (`browser`); nil leaves it to the run (`--browser`).
    public var browser: BrowserEngine?

    /// The longest time limit a scenario or `run --timeout` may set: 366 days. A sleep that
    /// long is still a deadline every clock can hold in nanoseconds; longer ones trapped.
    public static let longestTimeLimitSeconds: Int64 = 366 * 86_400
    /// Where the scenario starts (the document's first key).
    public var location: SourceLocation

    public init(
        name: String, description: String = "", tags: [String] = [], env: [String: String] = [:],
        seed: UInt64? = nil, issuer: IssuerTarget = .embedded(tenant: nil), device: DeviceSetup = .init(),
        apps: [AppSetup] = [AppSetup()], steps: [Step] = [], timeLimitSeconds: Double? = nil,
        location: SourceLocation
    ) {
        self.name = name
        self.description = description
        self.tags = tags
        self.env = env
        self.seed = seed
        self.issuer = issuer
        self.device = device
        self.apps = apps
        self.steps = steps
        self.timeLimitSeconds = timeLimitSeconds
        self.location = location
    }

    /// Whether a step anywhere in the scenario needs the embedded issuer (admin actions).
    public var needsEmbeddedIssuer: Bool {
        func needs(_ steps: [Step]) -> Bool {
            steps.contains { step in
                switch step.action {
                case .world(.issuer): true
                case .flow(.parallel(let inner)), .flow(.include(_, let inner)): needs(inner)
                case .flow(.expect(let expectations)): expectations.contains { $0.kind.needsEmbeddedIssuer }
                default: false
                }
            }
        }
        return needs(steps)
    }
}

/// The issuer a scenario runs against.
public enum IssuerTarget: Hashable, Sendable {
    /// SignInSim's own issuer, started fresh for the scenario. `tenant` is a tenant document
    /// (the format of `serve --tenant`) that adds to or overrides the default tenant.
    case embedded(tenant: TenantOverride?)
    /// A real issuer elsewhere, found by discovery.
    case external(ExternalIssuer)

    public var isEmbedded: Bool {
        if case .embedded = self { return true }
        return false
    }
}

/// A tenant document written inside a scenario, kept as YAML so the issuer's own loader
/// checks it (with positions in the scenario file).
public struct TenantOverride: Hashable, Sendable {
    public var node: YAMLNode
    public var file: String

    public init(node: YAMLNode, file: String) {
        self.node = node
        self.file = file
    }
}

/// How the apps reach a real issuer.
public struct ExternalIssuer: Hashable, Sendable {
    public var url: String
    /// The simulated Apple the phone authorizes at (for `signInWithApple` against a `serve`).
    public var appleURL: String?

    public init(url: String, appleURL: String? = nil) {
        self.url = url
        self.appleURL = appleURL
    }
}

/// The simulated phone.
public struct DeviceSetup: Hashable, Sendable {
    /// Seconds the device clock is ahead of (positive) or behind (negative) the world.
    public var skewSeconds: Int64
    public var hasPasscode: Bool
    /// The Apple ID signed in on the phone, if any.
    public var appleAccount: AppleAccountSetup?

    public init(skewSeconds: Int64 = 0, hasPasscode: Bool = true, appleAccount: AppleAccountSetup? = nil) {
        self.skewSeconds = skewSeconds
        self.hasPasscode = hasPasscode
        self.appleAccount = appleAccount
    }
}

/// The Apple ID on the phone.
public struct AppleAccountSetup: Hashable, Sendable {
    public var email: String
    public var givenName: String?
    public var familyName: String?
    /// Hide My Email: Apple gives the app a private relay address.
    public var privateRelay: Bool

    public init(
        email: String, givenName: String? = nil, familyName: String? = nil, privateRelay: Bool = false
    ) {
        self.email = email
        self.givenName = givenName
        self.familyName = familyName
        self.privateRelay = privateRelay
    }
}

/// One app on the device and how its SDK is configured at launch.
public struct AppSetup: Hashable, Sendable {
    public var bundleID: String
    public var clientID: String
    public var redirectURI: String
    public var scopes: [String]
    public var clientSecret: String?
    public var audience: String?
    /// The SDK behaviour profile (written `default`, `naive`, `persist-late+strict-clock`, …).
    public var profile: BehaviorProfile
    /// Seconds of leeway on an ID token's `exp` (`leeway`), instead of the profile's; nil keeps
    /// the profile's (60 s by default, 0 s with `appauth-clock` or `strict-clock`).
    public var leeway: Int64?
    /// `prefersEphemeralWebBrowserSession = false`: the device browser's cookie jar.
    public var sharedSession: Bool
    /// The engine of this app's web sheets (`browser`); nil takes the scenario's.
    public var browser: BrowserEngine?
    public var usesDPoP: Bool
    /// The login form's field names (other issuers name them differently).
    public var usernameField: String
    public var passwordField: String
    /// Text appended to the issuer URL the app is configured with: `/` configures
    /// `https://issuer/` against an issuer whose `iss` is `https://issuer` (field bug 15).
    public var issuerSuffix: String = ""
    /// Where the issuer sends the browser after the end-session call (RP-Initiated Logout §2);
    /// with one, sign-out also sends a `state` (field bug 8).
    public var postLogoutRedirectURI: String?
    /// How the client authenticates at the token endpoint (`client_auth_method`); nil lets the
    /// SDK choose from its credentials and the issuer's discovery document.
    public var clientAuthentication: ClientAuthenticationMethod?
    /// The private key of `private_key_jwt` (`client_key_file` or `client_jwk`).
    public var clientKey: ClientKeySetup?
    /// What a `private_key_jwt` assertion names as `aud` (`client_assertion_audience`); nil is
    /// the SDK's default, the issuer identifier.
    public var clientAssertionAudience: ClientAssertionAudience?
    /// `prompt` as written: values separated by spaces, or `omit` for none; nil is the SDK's
    /// rule (`consent` when the scopes include `offline_access`).
    public var prompt: String?
    /// `login_hint`, `ui_locales`, `organization`, `max_age` and `acr_values` of the
    /// authorization request (OpenID Connect Core §3.1.2.1; `organization` is Auth0's).
    public var loginHint: String?
    public var uiLocales: String?
    public var organization: String?
    public var maxAge: Int?
    public var acrValues: String?
    /// Other authorization request parameters (`authorization_parameters`).
    public var authorizationParameters: [String: String] = [:]

    public init(
        bundleID: String = "com.example.app", clientID: String = "com.example.app",
        redirectURI: String = "com.example.app://auth/callback",
        scopes: [String] = ["openid", "profile", "email", "offline_access"], clientSecret: String? = nil,
        audience: String? = nil, profile: BehaviorProfile = .default, sharedSession: Bool = false,
        usesDPoP: Bool = false,
        usernameField: String = "username", passwordField: String = "password"
    ) {
        self.bundleID = bundleID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.clientSecret = clientSecret
        self.audience = audience
        self.profile = profile
        self.sharedSession = sharedSession
        self.usesDPoP = usesDPoP
        self.usernameField = usernameField
        self.passwordField = passwordField
    }
}

/// How a client authenticates at the token endpoint (OpenID Connect Core §9), as the SDK's
/// `TokenEndpointAuthMethod` names them.
public enum ClientAuthenticationMethod: String, Hashable, Sendable, CaseIterable {
    /// `Authorization: Basic` (RFC 6749 §2.3.1).
    case basic = "client_secret_basic"
    /// `client_secret` in the form body.
    case post = "client_secret_post"
    /// A JWT signed with the client's private key (RFC 7523 §2.2).
    case privateKeyJWT = "private_key_jwt"
    /// No credential: a public client.
    case publicClient = "none"
}

/// Where a `private_key_jwt` client's private key comes from.
public enum ClientKeySetup: Hashable, Sendable {
    /// A file holding a private JWK or a PEM private key (`client_key_file`), read when the
    /// scenario is loaded: its path (resolved against the scenario file) and its text.
    case file(path: String, text: String)
    /// A private JWK written in the scenario (`client_jwk`).
    case jwk(JSONValue)
}

/// What a `private_key_jwt` assertion names as `aud`.
public enum ClientAssertionAudience: String, Hashable, Sendable, CaseIterable {
    /// The issuer identifier (draft-ietf-oauth-rfc7523bis §2).
    case issuer
    /// The token endpoint URL (OpenID Connect Core §9).
    case tokenEndpoint = "token_endpoint"
}

/// Authorization request parameters an app's `authorization_parameters` cannot name: those
/// the SDK sets itself and those with a setting of their own (the SDK's
/// `SignInOptions.reservedParameters`; a test keeps the two lists equal).
public enum ReservedAuthorizationParameters {
    /// Each name, with the setting to use instead where there is one.
    public static let names: [String: String?] = [
        "response_type": nil, "client_id": nil, "redirect_uri": nil, "state": nil, "nonce": nil,
        "code_challenge": nil, "code_challenge_method": nil, "scope": "scopes", "audience": "audience",
        "prompt": "prompt", "login_hint": "login_hint", "ui_locales": "ui_locales",
        "organization": "organization", "max_age": "max_age", "acr_values": "acr_values",
    ]
}

extension Scenario {
    /// The engine `app`'s sheets run in: the app's `browser`, else the scenario's, else the run's.
    public func browser(for app: AppSetup, runDefault: BrowserEngine) -> BrowserEngine {
        app.browser ?? browser ?? runDefault
    }

    /// Whether any app's sheet may run in WebKit with the run's default `runDefault`.
    public func usesBrowser(_ engine: BrowserEngine, runDefault: BrowserEngine) -> Bool {
        apps.contains { browser(for: $0, runDefault: runDefault) == engine }
    }
}
