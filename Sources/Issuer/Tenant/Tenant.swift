public import JOSE
public import OAuthCore

/// Everything an issuer serves: its clients, users, APIs, connections, keys and lifetimes.
///
/// `Tenant.default` needs no configuration; a tenant file adds to or overrides it
/// (`TenantLoader`).
public struct Tenant: Sendable, Hashable {
    public var clients: [ClientRegistration]
    public var users: [UserAccount]
    public var audiences: [APIAudience]
    public var connections: [ConnectionConfiguration]
    /// Scopes the issuer knows (OpenID Connect's, plus each audience's).
    public var scopes: [String]
    /// The algorithm of the issuer's signing key (ES256 by default, RS256 selectable).
    public var signingAlgorithm: JWSAlgorithm
    public var lifetimes: TokenLifetimes
    /// Whether DPoP proofs must carry a server nonce (RFC 9449 §8).
    public var requireDPoPNonce: Bool
    /// The API audience an access token is for when a request names none.
    public var defaultAudience: String?
    /// How refresh tokens rotate and what a rotated one presented again gets, for every client
    /// that names no profile of its own (`RefreshRotation`).
    public var refreshRotation = RefreshRotationSettings.default
    /// Whether the login, consent and logout pages are forms in the served HTML or are
    /// rendered by a script (`pages`, docs/issuer.md "Pages that need JavaScript").
    public var pageStyle = LoginPageStyle.html
    /// Whether pushed authorization requests (RFC 9126) are served, and required
    /// (`pushed_authorization_requests`, docs/issuer.md "Pushed authorization requests"): off by
    /// default.
    public var pushedAuthorizationRequests = PushedAuthorizationPolicy.off
    /// The rules this issuer breaks on purpose (`deviations`, docs/issuer.md "Deviations"):
    /// none by default.
    public var deviations: Set<IssuerDeviation> = []

    /// Whether the tenant breaks `rule` on purpose.
    public func deviates(_ rule: IssuerDeviation) -> Bool { deviations.contains(rule) }

    public init(
        clients: [ClientRegistration], users: [UserAccount], audiences: [APIAudience],
        connections: [ConnectionConfiguration] = [], scopes: [String] = Tenant.openIDScopes,
        signingAlgorithm: JWSAlgorithm = .es256, lifetimes: TokenLifetimes = TokenLifetimes(),
        requireDPoPNonce: Bool = false, defaultAudience: String? = nil
    ) {
        self.clients = clients
        self.users = users
        self.audiences = audiences
        self.connections = connections
        self.scopes = scopes
        self.signingAlgorithm = signingAlgorithm
        self.lifetimes = lifetimes
        self.requireDPoPNonce = requireDPoPNonce
        self.defaultAudience = defaultAudience
    }

    public static let openIDScopes = ["openid", "profile", "email", "offline_access"]

    /// The tenant `signinsim serve` starts with when given no file (listed in docs/issuer.md).
    public static let `default` = Tenant(
        clients: [
            ClientRegistration(
                id: "com.example.app", name: "Example App",
                redirectURIs: ["com.example.app://auth/callback", "http://127.0.0.1/callback"],
                postLogoutRedirectURIs: ["com.example.app://auth/logout", "http://127.0.0.1/logout"],
                grantTypes: [
                    GrantType.authorizationCode, GrantType.refreshToken, GrantType.tokenExchange,
                ])
        ],
        users: [
            UserAccount(
                id: "auth0|alice", email: "alice@example.com", password: "alice-password",
                name: "Alice Liddell",
                givenName: "Alice", familyName: "Liddell"),
            UserAccount(
                id: "auth0|bob", email: "bob@example.com", password: "bob-password", name: "Bob Builder",
                givenName: "Bob", familyName: "Builder"),
        ],
        audiences: [
            APIAudience(identifier: "https://api.example.com", scopes: ["read:items", "write:items"])
        ],
        connections: [ConnectionConfiguration(name: "apple", kind: .apple)],
        defaultAudience: "https://api.example.com")

    public func client(_ id: String) -> ClientRegistration? { clients.first { $0.id == id } }
    public func audience(_ identifier: String) -> APIAudience? {
        audiences.first { $0.identifier == identifier }
    }
}

/// An OAuth client (RFC 6749 §2).
public struct ClientRegistration: Sendable, Hashable {
    public var id: String
    public var name: String
    /// `nil` for a public client (a native app, RFC 8252 §8.4); a secret makes it confidential.
    public var secret: String?
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    public var grantTypes: Set<String>
    /// Whether every token request must carry a DPoP proof (RFC 9449 §5).
    public var requireDPoP: Bool
    /// Lifetimes for this client alone, overriding the tenant's.
    public var lifetimes: TokenLifetimes?
    /// This client's refresh token rotation, where the real issuer sets it per application
    /// (Auth0, Okta; `.none` for a client without rotation, as field bug 3 needs); `nil`
    /// follows the tenant's.
    public var refreshRotation: RefreshRotationSettings?
    /// The one way this client may authenticate at the token and revocation endpoints
    /// (`token_endpoint_auth_method`, OpenID Connect Core §9, RFC 7591 §2); `nil` accepts what
    /// its credentials allow (`acceptedAuthenticationMethods`).
    public var authenticationMethod: TokenEndpointAuthMethod?
    /// The client's public keys, which verify its `private_key_jwt` assertions (`jwks`,
    /// RFC 7591 §2).
    public var keys: JWKSet?

    public init(
        id: String, name: String? = nil, secret: String? = nil, redirectURIs: [String],
        postLogoutRedirectURIs: [String] = [],
        grantTypes: Set<String> = [GrantType.authorizationCode, GrantType.refreshToken],
        requireDPoP: Bool = false, lifetimes: TokenLifetimes? = nil
    ) {
        self.id = id
        self.name = name ?? id
        self.secret = secret
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.grantTypes = grantTypes
        self.requireDPoP = requireDPoP
        self.lifetimes = lifetimes
    }

    /// The methods the token endpoint accepts from this client: the registered one, or without
    /// one, both secret methods for a client with a secret, `private_key_jwt` for a client with
    /// keys, and `none` for a client with neither.
    public var acceptedAuthenticationMethods: [TokenEndpointAuthMethod] {
        if let authenticationMethod { return [authenticationMethod] }
        var methods: [TokenEndpointAuthMethod] = []
        if secret != nil { methods += [.clientSecretBasic, .clientSecretPost] }
        if keys != nil { methods.append(.privateKeyJWT) }
        return methods.isEmpty ? [.publicClient] : methods
    }

    /// What is wrong with the registered method and the client's credentials, if anything: a
    /// method lacks the credential it needs, or the client has one the method would ignore.
    public var authenticationProblem: String? {
        guard let method = authenticationMethod else { return nil }
        let hasSecret = secret != nil
        let hasKeys = keys != nil
        let problem: String? =
            switch method {
            case .clientSecretBasic, .clientSecretPost:
                !hasSecret ? "needs a client_secret" : hasKeys ? "does not use jwks; remove them" : nil
            case .privateKeyJWT:
                !hasKeys
                    ? "needs the client's public keys (jwks or jwks_file)"
                    : hasSecret ? "does not use a client_secret; remove it" : nil
            case .publicClient:
                hasSecret || hasKeys ? "is a public client: it has no client_secret or jwks" : nil
            }
        return problem.map { "client \"\(id.prefix(200))\" with token_endpoint_auth_method \(method) \($0)" }
    }

    /// A client that proves nothing at the token endpoint (RFC 6749 §2.1): PKCE is required of
    /// it, and its refresh tokens are bound to its DPoP key.
    public var isPublic: Bool { acceptedAuthenticationMethods == [.publicClient] }
}

/// A user the issuer can authenticate or link.
public struct UserAccount: Sendable, Hashable {
    /// The stable `sub`.
    public var id: String
    public var email: String?
    public var emailVerified: Bool
    /// `nil` for users who only sign in through a connection (Apple).
    public var password: String?
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    /// `database` for password users, or the connection's name.
    public var connection: String
    /// The user's id at the connection (Apple's `sub`), for linked users.
    public var externalID: String?

    public init(
        id: String, email: String? = nil, emailVerified: Bool = true, password: String? = nil,
        name: String? = nil,
        givenName: String? = nil, familyName: String? = nil, connection: String = "database",
        externalID: String? = nil
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.password = password
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.connection = connection
        self.externalID = externalID
    }
}

/// An API whose identifier is an access token audience (Auth0 "API", RFC 8707 resource).
public struct APIAudience: Sendable, Hashable {
    public var identifier: String
    public var scopes: [String]

    public init(identifier: String, scopes: [String]) {
        self.identifier = identifier
        self.scopes = scopes
    }
}

/// An upstream identity provider whose tokens the issuer accepts in a token exchange.
public struct ConnectionConfiguration: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Sign in with Apple: native authorization codes and Apple identity tokens, reached
        /// with `ConnectionConfiguration.apple` (`Issuer.connectApple(transport:)`).
        case apple
        /// Any OpenID provider whose ID tokens are accepted as RFC 8693 `id_token` subjects,
        /// verified against the given keys.
        case openIDProvider(issuer: String, audience: String, keys: JWKSet)
    }

    public var name: String
    public var kind: Kind
    /// How a connection of kind `.apple` reaches Apple; ignored for other kinds.
    public var apple: AppleConnectionSettings

    public init(name: String, kind: Kind, apple: AppleConnectionSettings = AppleConnectionSettings()) {
        self.name = name
        self.kind = kind
        self.apple = apple
    }
}

/// Where an Apple connection redeems native authorization codes, and as whom (docs/issuer.md,
/// "Sign in with Apple").
///
/// The developer credentials (team id, key id, P-256 private key) sign the ES256 client secret
/// of every `/auth/token` call. `signinsim serve` fills them in for the Apple simulator it hosts
/// unless the tenant file names an external `apple_url`.
public struct AppleConnectionSettings: Sendable, Hashable {
    /// Where `/auth/token` and `/auth/keys` are, without a trailing slash. `nil` (not set) is
    /// Apple's own `https://appleid.apple.com`, except under `signinsim serve`, which points an
    /// unset URL at the simulator it hosts.
    public var appleURL: String?
    public var teamID: String?
    public var keyID: String?
    /// The developer key (a P-256 private key, PEM), checked when the tenant is loaded.
    public var privateKeyPEM: String?
    /// The client ids at Apple (bundle ids) this connection redeems codes for. The exchange's
    /// `client_id` names the bundle id: an issuer client must have the same id as its app.
    public var bundleIDs: [String]
    /// Refuse any `nonce` on the native code exchange with 400 "Error from Apple connection",
    /// as Auth0 does (field bug 11).
    public var rejectNonce: Bool
    /// Whether native authorization codes (`subject_token_type`
    /// `http://auth0.com/oauth/token-type/apple-authz-code`) are exchanged. `false` accepts
    /// Apple identity tokens only, as an issuer upgraded without the code type does (field bug
    /// 13): a code exchange is then 400 `invalid_request`, unsupported subject token type.
    public var acceptsAuthorizationCodes: Bool
    /// Refuse a first Apple sign-in whose email already belongs to an account of another
    /// connection (400 `invalid_grant`), as issuers that link accounts only on request do
    /// (field bug 13), instead of making a separate account.
    public var refusesUnlinkedAccounts: Bool

    public init(
        appleURL: String? = nil, teamID: String? = nil, keyID: String? = nil,
        privateKeyPEM: String? = nil, bundleIDs: [String] = ["com.example.app"], rejectNonce: Bool = false,
        acceptsAuthorizationCodes: Bool = true, refusesUnlinkedAccounts: Bool = false
    ) {
        self.appleURL = appleURL
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        self.bundleIDs = bundleIDs
        self.rejectNonce = rejectNonce
        self.acceptsAuthorizationCodes = acceptsAuthorizationCodes
        self.refusesUnlinkedAccounts = refusesUnlinkedAccounts
    }

    /// Apple's own base URL, what an unset `appleURL` means.
    public static let productionURL = "https://appleid.apple.com"

    /// The base URL calls go to.
    public var effectiveAppleURL: String { appleURL ?? Self.productionURL }

    /// Whether the developer credentials are all there.
    public var hasCredentials: Bool { teamID != nil && keyID != nil && privateKeyPEM != nil }
}

/// How long each artefact lives, in seconds.
public struct TokenLifetimes: Sendable, Hashable {
    /// Authorization codes (RFC 6749 §4.1.2 recommends at most 10 minutes; 60 s is common).
    public var authorizationCode: Int64 = 60
    public var accessToken: Int64 = 3600
    public var idToken: Int64 = 3600
    public var refreshToken: Int64 = 30 * 86400
    /// The issuer session behind the SSO cookie.
    public var session: Int64 = 7 * 86400
    /// A login page's transaction.
    public var transaction: Int64 = 600
    /// How far a DPoP proof's `iat` may be from now (RFC 9449 §11.1).
    public var dpopProofWindow: Int64 = 60
    /// A pushed authorization request's `request_uri` (RFC 9126 §2.2: short-lived; the RFC's
    /// examples use 60 s).
    public var pushedRequest: Int64 = 60

    public init() {}
}
