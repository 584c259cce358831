import Clocks
import Cryptography
import Foundation
import HTTPCore
import JOSE
import JSON
import OAuthCore

/// The app's sign-in SDK (docs/sdk.md) over injected ports.
///
/// An actor, because a real app calls it from many places at once (a view appearing, a
/// background fetch, a push) and the refresh rules are about exactly that. Everything it knows
/// of the world comes through `SignInEnvironment`.
public actor SignInClient {
    /// The storage key of the credentials.
    public static let credentialsKey = "credentials"
    /// The storage key of the DPoP private key (a JWK).
    public static let dpopKeyKey = "dpop_key"
    /// The storage key of an Apple name kept until an exchange succeeds.
    public static let appleNameKey = "apple_pending_name"
    /// The preference that marks an installation as launched before (field bug 16).
    public static let installationMarker = "signin.installation"
    /// Largest discovery document or JWKS read.
    static let maximumMetadataSize = 1 << 20

    var environment: SignInEnvironment
    var options: SignInOptions?
    var metadata: ProviderMetadata?
    var keys: JWKCollection?
    var pending = PendingAuthorizations()
    /// The `state` of the sign-in whose sheet is up.
    var activeTransaction: String?
    var inFlightRefresh: Task<Result<Session, SignInError>, Never>?
    var serializedTail: Task<Void, Never>?
    /// A refreshed session not yet written (only with the `persist-late` fault).
    var deferredWrite: Session?
    /// The refresh token of the app's own copy of its credentials (only with the
    /// `stale-refresh-copy` fault): taken at the first refresh after a sign-in or a launch,
    /// never updated by a refresh.
    var keptRefreshToken: String?
    /// The stored form last written or read, with its session: a re-read that finds the same
    /// bytes (nobody else wrote) skips decoding them and the ID token again.
    var lastStoredForm: (bytes: [UInt8], session: Session)?
    var dpopSigner: JWSSigner?
    var dpopNonces: [String: String] = [:]
    /// Whether this instance observes Apple's revocation notification (from the first configure).
    var observesAppleRevocation = false
    /// Seconds to add to the device's time for the `iat` of DPoP proofs, by server origin: set
    /// from a refusal's `Date` with the `dpop-server-date` profile (`DPoPClockSkew`).
    var dpopClockOffsets: [String: Int64] = [:]

    public init(environment: SignInEnvironment) {
        self.environment = environment
    }

    // MARK: - Configuration

    /// Configures the issuer and client, reads discovery, and clears keychain items a previous
    /// installation left behind (a fresh install has no marker in the app's preferences).
    ///
    /// The first configure of an instance also starts observing Apple's
    /// `credentialRevokedNotification` through the Apple port, as Apple asks apps to do at
    /// launch: a revocation signs the Apple user out (`handleAppleCredentialRevoked()`).
    public func configure(options: SignInOptions) async throws(SignInError) {
        guard URLParts(options.issuer).map({ $0.scheme == "https" || $0.scheme == "http" }) == true else {
            throw SignInError(.invalidConfiguration, "the issuer \"\(options.issuer)\" is not an http(s) URL")
        }
        guard URLParts(options.redirectURI) != nil else {
            throw SignInError(
                .invalidConfiguration, "the redirect URI \"\(options.redirectURI)\" is not a URL")
        }
        guard !options.clientID.isEmpty else {
            throw SignInError(.invalidConfiguration, "the client id is empty")
        }
        if let leeway = options.leeway, leeway < 0 {
            throw SignInError(.invalidConfiguration, "the leeway must not be negative; it is \(leeway) s")
        }
        try options.checkClientRegistration()
        self.options = options
        metadata = nil
        keys = nil
        observeAppleRevocation()
        try clearPreviousInstallation(profile: options.profile)
        _ = try await providerMetadata()
    }

    /// Replaces the storage adapter (`setTokenStorage(_:)`, docs/sdk.md).
    public func setTokenStorage(_ storage: any TokenStorage) {
        environment.storage = storage
    }

    func configuredOptions() throws(SignInError) -> SignInOptions {
        guard let options else { throw SignInError(.notConfigured, "configure(options:) was not called") }
        return options
    }

    private func clearPreviousInstallation(profile: BehaviorProfile) throws(SignInError) {
        guard environment.preferences.string(forKey: Self.installationMarker) == nil else { return }
        if !profile.has(.keepKeychainOnReinstall) {
            do {
                for key in [Self.credentialsKey, Self.dpopKeyKey, Self.appleNameKey] {
                    try environment.storage.delete(key: key)
                }
            } catch {
                throw SignInError(.storage, "could not clear a previous installation's items: \(error)")
            }
        }
        environment.preferences.set("1", forKey: Self.installationMarker)
    }

    // MARK: - Discovery and keys

    /// The issuer's metadata, fetched once per configuration (OpenID Connect Discovery §4).
    public func providerMetadata() async throws(SignInError) -> ProviderMetadata {
        if let metadata { return metadata }
        let options = try configuredOptions()
        let url = ProviderMetadata.discoveryURL(forIssuer: options.issuer)
        let response = try await send(HTTPRequest(url: url), endpoint: "discovery")
        guard response.status == 200 else {
            throw SignInError(.discoveryFailed, "\(url) answered \(response.status)", status: response.status)
        }
        let json: JSONValue
        do {
            json = try response.jsonBody()
        } catch {
            throw SignInError(.discoveryFailed, "\(url): \(error.message)")
        }
        let document = try ProviderMetadata(json: json)
        // Discovery §4.3: the document's issuer must be the one asked for.
        let matches =
            options.profile.has(.exactIssuerMatch)
            ? document.issuer == options.issuer
            : JWTValidation.normalizedIssuer(document.issuer)
                == JWTValidation.normalizedIssuer(options.issuer)
        guard matches else {
            throw SignInError(
                .discoveryFailed,
                "discovery names the issuer \"\(document.issuer)\", not the configured \"\(options.issuer)\"")
        }
        metadata = document
        return document
    }

    /// The issuer's signing keys, from cache unless `refetch`.
    func signingKeys(refetch: Bool) async throws(SignInError) -> JWKCollection {
        if let keys, !refetch { return keys }
        let metadata = try await providerMetadata()
        let response = try await send(HTTPRequest(url: metadata.jwksURI), endpoint: "jwks")
        guard response.status == 200 else {
            throw SignInError(
                .discoveryFailed, "the JWKS answered \(response.status)", status: response.status)
        }
        let set: JWKSet
        do {
            set = try JWKSet.parse(response.body)
        } catch {
            throw SignInError(.discoveryFailed, "the JWKS cannot be read: \(error.message)")
        }
        let collection = JWKCollection(set)
        keys = collection
        return collection
    }

    /// Verifies the ID token of a token response against the cached keys, fetching them again
    /// once when the token names a key the cache lacks (a rotation, OpenID Connect Core §10.1.1), and
    /// checks that it binds the response's `accessToken` and, for a code exchange, the `code`.
    func verifyIDToken(_ idToken: String, nonce: String?, accessToken: String, code: String? = nil)
        async throws(SignInError) -> JWTClaims
    {
        let options = try configuredOptions()
        let verifier = IDTokenVerifier(
            issuer: options.issuer, clientID: options.clientID, clock: options.clockTolerance,
            exactIssuerMatch: options.profile.has(.exactIssuerMatch),
            requiresAccessTokenHash: options.profile.strictness.contains(.requireAccessTokenHash))
        let now = environment.clock.now()
        var refetched = false
        while true {
            let keys = try await signingKeys(refetch: refetched)
            do {
                return try verifier.verify(
                    idToken, keys: keys, nonce: nonce, now: now, accessToken: accessToken, code: code)
            } catch  where error.code == .unknownKey && !refetched {
                refetched = true
            } catch  where error.code == .tokenHashMismatch {
                throw SignInError(.tokenHashMismatch, error.message)
            } catch {
                throw SignInError(.idTokenInvalid, "the ID token was rejected: \(error)")
            }
        }
    }

    // MARK: - Transport

    /// Sends a request and maps transport failures to `SignInError.transport`, whose message
    /// names the `endpoint`.
    func send(_ request: HTTPRequest, endpoint: String) async throws(SignInError) -> HTTPResponse {
        do {
            return try await environment.transport.send(request)
        } catch {
            throw SignInError(.transport, "\(endpoint): \(error)")
        }
    }

    /// How this client authenticates at the token endpoint (docs/sdk.md, "Client
    /// authentication"): the configured method; else `private_key_jwt` when the app has a key;
    /// else, with a secret, `client_secret_basic` when discovery lists it or lists no methods
    /// (OpenID Connect Discovery §3's default), `client_secret_post` when only that of the two
    /// is listed, and `client_secret_basic` otherwise (RFC 6749 §2.3.1: every server supports
    /// it); else `none`.
    func clientAuthenticationMethod() async throws(SignInError) -> TokenEndpointAuthMethod {
        let options = try configuredOptions()
        if let chosen = options.clientAuthentication { return chosen }
        if options.clientKey != nil { return .privateKeyJWT }
        guard options.clientSecret != nil else { return .publicClient }
        let listed = try await providerMetadata().tokenEndpointAuthMethodsSupported
        guard let listed else { return .clientSecretBasic }
        if !listed.contains(TokenEndpointAuthMethod.clientSecretBasic.rawValue),
            listed.contains(TokenEndpointAuthMethod.clientSecretPost.rawValue)
        {
            return .clientSecretPost
        }
        return .clientSecretBasic
    }

    /// Adds client authentication to a token request, and says which method it used. The form
    /// carries `client_id` in every case (RFC 6749 §3.2.1, RFC 7521 §4.2); a `private_key_jwt`
    /// assertion is made anew for each request, so that a retried request never replays a
    /// `jti` the issuer has seen.
    func authenticateClient(_ parameters: inout FormParameters, headers: inout HTTPHeaders)
        async throws(SignInError) -> TokenEndpointAuthMethod
    {
        let options = try configuredOptions()
        let method = try await clientAuthenticationMethod()
        switch method {
        case .clientSecretBasic:
            let secret = try clientSecret(options, for: method)
            let credentials =
                FormURLEncoding.escape(options.clientID) + ":" + FormURLEncoding.escape(secret)
            headers.replaceOrAdd(
                name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        case .clientSecretPost:
            parameters.append(OAuthParameter.clientSecret, try clientSecret(options, for: method))
        case .privateKeyJWT:
            parameters.append(OAuthParameter.clientAssertionType, ClientAssertion.type)
            parameters.append(OAuthParameter.clientAssertion, try await clientAssertion())
        case .publicClient:
            break
        }
        return method
    }

    /// The secret a secret-sending method needs: the method is only chosen, or accepted by
    /// `checkClientRegistration()`, when the options hold one.
    private func clientSecret(_ options: SignInOptions, for method: TokenEndpointAuthMethod)
        throws(SignInError) -> String
    {
        guard let secret = options.clientSecret else {
            throw SignInError(.invalidConfiguration, "\(method.rawValue) needs a client secret")
        }
        return secret
    }

    /// A `private_key_jwt` assertion for the token endpoint (RFC 7523 §2.2, OpenID Connect
    /// Core §9), its `jti` from the injected random source.
    private func clientAssertion() async throws(SignInError) -> String {
        let options = try configuredOptions()
        guard let key = options.clientKey else {
            throw SignInError(.invalidConfiguration, "private_key_jwt needs the client's private key")
        }
        let metadata = try await providerMetadata()
        let audience =
            switch options.clientAssertionAudience {
            case .issuer: metadata.issuer
            case .tokenEndpoint: metadata.tokenEndpoint
            }
        do {
            return try ClientAssertion.make(
                signer: try JWSSigner(jwk: key), clientID: options.clientID, audience: audience,
                issuedAt: environment.clock.now(), id: randomToken())
        } catch {
            throw SignInError(.invalidConfiguration, "could not sign the client assertion: \(error.message)")
        }
    }

    /// Random bytes as base64url: 32 bytes give the 43 characters of a state, nonce or verifier.
    func randomToken() -> String { Base64URL.encode(environment.random.bytes(count: 32)) }
}
