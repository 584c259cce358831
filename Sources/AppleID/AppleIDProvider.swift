public import Clocks
public import Cryptography
public import HTTPCore
public import JOSE
import JSON
import Locking

/// A simulated Sign in with Apple: Apple's identity provider (`/auth/keys`, `/auth/token`,
/// `/auth/revoke`) and the device's native authorization (`authorize(_:)`), sharing one state.
///
/// Usable in process (`respond(to:)` is an `HTTPHandler`; `authorize(_:)` is a plain call) and
/// over HTTP (hand `respond` to a server, alone or under a path prefix such as `/apple` next to
/// an issuer). Time and randomness are injected; all state sits behind one lock, held briefly
/// and never across an `await` or a signature.
///
/// Tokens carry Apple's real issuer, `https://appleid.apple.com`, whatever the URL the provider
/// is served at, because relying parties compare `iss` with that constant.
public final class AppleIDProvider: Sendable {
    /// `iss` of identity tokens and `aud` of client secrets.
    public static let issuer = "https://appleid.apple.com"
    /// The response header that says, for people, why a request was refused.
    public static let reasonHeader = "X-SignInSim-Reason"

    /// Where the provider is served, e.g. `http://127.0.0.1:8080/apple`, without a trailing slash.
    public let baseURL: String
    /// The path the provider's routes sit under (`/apple`), or empty.
    public let pathPrefix: String
    public let configuration: AppleConfiguration
    /// Who may use the `/_admin/` routes: programs on this machine, never a web page.
    let adminPolicy: LocalAdminPolicy
    let clock: any WallClock
    let random: any RandomSource
    let state: Mutex<AppleProviderState>

    /// - Parameters:
    ///   - baseURL: where clients reach the provider; its path is the default `pathPrefix`.
    ///   - keySet: the RSA keys; build it once (`AppleKeySet.fixed(seed:)`) and share it.
    ///   - pathPrefix: the path before the routes (`/apple` serves `/apple/auth/keys`); `nil`
    ///     takes the path of `baseURL`.
    public init(
        baseURL: String, clock: any WallClock, random: any RandomSource, keySet: AppleKeySet,
        configuration: AppleConfiguration = .init(), pathPrefix: String? = nil
    ) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        var prefix = pathPrefix ?? URLParts.path(of: base)
        while prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty && !prefix.hasPrefix("/") { prefix = "/" + prefix }
        self.pathPrefix = prefix
        adminPolicy = LocalAdminPolicy(serviceURL: base)
        self.configuration = configuration
        self.clock = clock
        self.random = random
        state = Mutex(AppleProviderState(keys: AppleKeyRing(keySet)))
    }

    /// Paths of the endpoints, relative to the prefix.
    public enum Path {
        public static let keys = "/auth/keys"
        public static let token = "/auth/token"
        public static let revoke = "/auth/revoke"
        public static let adminAuthorize = "/_admin/authorize"
        public static let adminRevokeConsent = "/_admin/revoke-consent"
        public static let adminCredentialState = "/_admin/credential-state"
        public static let adminDeveloperKeys = "/_admin/developer-keys"
        public static let adminRotateKeys = "/_admin/keys/rotate"
        public static let adminTransfer = "/_admin/transfer"
    }

    /// The absolute URL of an endpoint: `url(Path.keys)` is `baseURL + "/auth/keys"`.
    public func url(_ path: String) -> String { baseURL + path }

    typealias Endpoint = @Sendable (AppleIDProvider, HTTPRequest) -> HTTPResponse

    static let endpoints: [String: [HTTPMethod: Endpoint]] = [
        Path.keys: [.get: { provider, _ in provider.keysResponse() }],
        Path.token: [.post: { provider, request in provider.token(request) }],
        Path.revoke: [.post: { provider, request in provider.revoke(request) }],
        Path.adminAuthorize: [.post: { provider, request in provider.adminAuthorize(request) }],
        Path.adminRevokeConsent: [.post: { provider, request in provider.adminRevokeConsent(request) }],
        Path.adminCredentialState: [.get: { provider, request in provider.adminCredentialState(request) }],
        Path.adminDeveloperKeys: [
            .post: { provider, request in provider.adminRegisterDeveloperKey(request) }
        ],
        Path.adminRotateKeys: [.post: { provider, request in provider.adminRotateKeys(request) }],
        Path.adminTransfer: [.post: { provider, request in provider.adminTransfer(request) }],
    ]

    /// Answers one request. Bad input is a 400 with a JSON body, never a 5xx. The `/_admin/`
    /// routes answer only requests `LocalAdminPolicy` lets through (403 or 415 otherwise).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let path = routePath(of: request.path), path.hasPrefix("/_admin/"),
            let refusal = adminPolicy.refusal(of: request)
        {
            return AppleAdminError(
                error: refusal.error, description: refusal.description, status: refusal.status
            )
            .response
        }
        guard let path = routePath(of: request.path), let methods = Self.endpoints[path] else {
            return AppleAdminError(
                error: "not_found", description: "no endpoint at \(request.path.prefix(200))", status: 404
            ).response
        }
        guard let endpoint = methods[request.method] else {
            var response = AppleAdminError(
                error: "method_not_allowed", description: "\(request.method) is not allowed on \(path)",
                status: 405
            ).response
            response.headers["Allow"] = methods.keys.map(\.rawValue).sorted().joined(separator: ", ")
            return response
        }
        guard request.body.count <= configuration.maximumBodySize else {
            return AppleEndpointError.invalidRequest(
                "request body is \(request.body.count) bytes; the limit is \(configuration.maximumBodySize)"
            ).response
        }
        return endpoint(self, request)
    }

    /// The request path relative to the prefix, or `nil` when it is outside it.
    private func routePath(of path: String) -> String? {
        guard !pathPrefix.isEmpty else { return path }
        guard path.hasPrefix(pathPrefix) else { return nil }
        let rest = String(path.dropFirst(pathPrefix.count))
        if rest.isEmpty { return "/" }
        return rest.hasPrefix("/") ? rest : nil
    }

    // MARK: - Keys

    /// `GET /auth/keys`: the published public keys.
    func keysResponse() -> HTTPResponse { .json(publicKeySet.json) }

    /// The JWK Set `/auth/keys` serves now: the active key, the other published ones, and
    /// retired keys still within `AppleConfiguration.retiredKeyPublicationPeriod`.
    public var publicKeySet: JWKSet {
        let now = clock.now()
        let keys = state.withLock {
            $0.keys.published(now: now, retention: configuration.retiredKeyPublicationPeriod)
        }
        return JWKSet(keys: keys.map(\.publicJWK))
    }

    /// The `kid` identity tokens are signed with now.
    public var activeKeyID: String { state.withLock { $0.keys.active.keyID } }

    /// Makes a new key the signing key and returns its `kid`; the old one stays published for
    /// `AppleConfiguration.retiredKeyPublicationPeriod`. The key comes from the key set's reserve;
    /// once that is used up, a new RSA key is generated (about 150 ms).
    @discardableResult
    public func rotateKeys() throws(CryptoError) -> String {
        var next = state.withLock { $0.keys.takeReserve() }
        if next == nil {
            next = AppleSigningKey(privateKey: try RSAPrivateKey(bits: 2048))
        }
        guard let key = next else { preconditionFailure("a key was just taken or generated") }
        let now = clock.now()
        state.withLock {
            $0.keys.activate(key, now: now, retention: configuration.retiredKeyPublicationPeriod)
        }
        return key.keyID
    }

    // MARK: - Developer keys and apps

    /// Registers a developer key of a team: client secrets with header `kid` = `keyID` and
    /// `iss` = `teamID` must be signed by it. Registering the same ids again replaces the key.
    public func registerDeveloperKey(teamID: String, keyID: String, publicKey: P256PublicKey) {
        state.withLock { $0.developerKeys[DeveloperKeyID(teamID: teamID, keyID: keyID)] = publicKey }
    }

    /// The team an app (bundle id) belongs to, once an authorization or a transfer named it.
    public func team(ofApp bundleID: String) -> String? { state.withLock { $0.apps[bundleID] } }

    // MARK: - Helpers

    /// Signs identity-token claims with the active key, adding the hash claims (`c_hash`,
    /// `at_hash`) of the `bound` values under that key's `alg` (OpenID Connect Core §3.3.2.11).
    /// Apple's header is `{"kid", "alg"}` only.
    func signIdentityToken(_ claims: JWTClaims, binding bound: [HashClaim: String]) throws(JOSEError)
        -> String
    {
        let key = state.withLock { $0.keys.active }
        var claims = claims
        for (claim, value) in bound {
            claims.otherClaims[claim.rawValue] = .string(
                try HashClaim.leftHalfHash(of: value, algorithm: key.signer.algorithm.rawValue))
        }
        return try JWS.sign(payload: claims.json.serialized(), signer: key.signer)
    }

    /// The claims of an identity token for `grant`, issued at `now`.
    func identityClaims(_ grant: AppleGrant, now: Int64, nonce: String?) -> JWTClaims {
        var claims = JWTClaims(
            issuer: Self.issuer, subject: grant.subject, audience: .single(grant.clientID),
            expiresAt: now + configuration.identityTokenLifetime, issuedAt: now, nonce: nonce)
        claims.otherClaims["auth_time"] = .int(grant.authTime)
        claims.otherClaims["nonce_supported"] = .bool(true)
        claims.otherClaims["real_user_status"] = .int(Int64(grant.realUserStatus.rawValue))
        if let email = grant.email {
            claims.otherClaims["email"] = .string(email)
            claims.otherClaims["email_verified"] = encode(true)
            claims.otherClaims["is_private_email"] = encode(grant.isPrivateEmail)
        }
        return claims
    }

    private func encode(_ value: Bool) -> JSONValue {
        switch configuration.booleanEncoding {
        case .jsonBoolean: .bool(value)
        case .string: .string(value ? "true" : "false")
        }
    }
}
