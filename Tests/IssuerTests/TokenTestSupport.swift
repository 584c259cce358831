// Shared helpers for the token, DPoP, userinfo and revocation tests.
import Clocks
import Cryptography
import Foundation
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

/// The default tenant's native app.
let appClientID = "com.example.app"
let appRedirectURI = "com.example.app://auth/callback"
let aliceID = "auth0|alice"
/// A verifier and its challenge (RFC 7636 Appendix B).
let testVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
let testChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
let fullScopes = ["openid", "profile", "email", "offline_access"]

/// The upstream OpenID provider of the token exchange tests, and its signing key.
let partnerIssuer = "https://idp.partner.example"
let partnerAudience = "partner-app"
let partnerSigner: JWSSigner = {
    let key = try! P256PrivateKey()
    return try! JWSSigner(key: .p256(key), algorithm: .es256, keyID: "partner-1")
}()

/// The default tenant plus a confidential web client, a client without token exchange, a
/// client that must use DPoP, and an `.openIDProvider` connection.
func tokenTestTenant(
    requireDPoPNonce: Bool = false, rotation: RefreshRotation = .default,
    concurrentRefresh: ConcurrentRefresh = .serialized
) -> Tenant {
    var tenant = Tenant.default
    tenant.clients.append(
        ClientRegistration(
            id: "web", secret: "web-secret/+:é", redirectURIs: ["https://web.example/cb"],
            grantTypes: ["authorization_code", "refresh_token"]))
    tenant.clients.append(
        ClientRegistration(
            id: "narrow", redirectURIs: ["com.example.narrow://cb"], grantTypes: ["authorization_code"]))
    tenant.clients.append(
        ClientRegistration(
            id: "bound", redirectURIs: ["com.example.bound://cb"], requireDPoP: true))
    tenant.connections.append(
        ConnectionConfiguration(
            name: "partner",
            kind: .openIDProvider(
                issuer: partnerIssuer, audience: partnerAudience,
                keys: JWKSet(keys: [partnerSigner.publicJWK]))))
    tenant.requireDPoPNonce = requireDPoPNonce
    tenant.refreshRotation = RefreshRotationSettings(rotation, concurrentRefresh: concurrentRefresh)
    return tenant
}

/// The tokens of one successful token response.
struct TokenSet: Sendable {
    var body: JSONValue
    var accessToken: String { body["access_token"]?.stringValue ?? "" }
    var refreshToken: String? { body["refresh_token"]?.stringValue }
    var idToken: String? { body["id_token"]?.stringValue }
}

/// A client-side DPoP key that makes proofs for the fixture's endpoints.
struct DPoPKey: Sendable {
    let signer: JWSSigner

    init(algorithm: JWSAlgorithm = .es256) throws {
        switch algorithm {
        case .es256: signer = try JWSSigner(key: .p256(try P256PrivateKey()), algorithm: .es256)
        case .rs256, .ps256:
            signer = try JWSSigner(key: .rsa(try RSAPrivateKey(bits: 2048)), algorithm: algorithm)
        }
    }

    var thumbprint: String { (try? signer.publicJWK.thumbprint()) ?? "" }

    func proof(
        _ fixture: IssuerFixture, method: String = "POST", path: String = "/oauth/token",
        accessToken: String? = nil,
        nonce: String? = nil, issuedAt: Int64? = nil, id: String? = nil
    ) throws -> String {
        try DPoPProof.make(
            signer: signer, method: method, url: fixture.baseURL + path, accessToken: accessToken,
            nonce: nonce,
            issuedAt: issuedAt ?? fixture.clock.now(),
            id: id ?? Base64URL.encode(SystemRandom().bytes(count: 16)))
    }
}

extension IssuerFixture {
    /// A code for Alice as `/authorize` would issue it.
    func code(
        scopes: [String] = fullScopes, clientID: String = appClientID, redirectURI: String = appRedirectURI,
        nonce: String? = "n-0S6_WzA2Mj", challenge: String? = testChallenge, dpopKeyThumbprint: String? = nil
    ) -> String {
        issuer.issueAuthorizationCode(
            clientID: clientID, redirectURI: redirectURI, userID: aliceID, scopes: scopes, nonce: nonce,
            codeChallenge: challenge, audience: "https://api.example.com", authTime: clock.now() - 5,
            sessionID: "session-1", dpopKeyThumbprint: dpopKeyThumbprint)
    }

    /// `POST /oauth/token` with a form.
    func token(_ parameters: FormParameters, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await postForm("/oauth/token", parameters, headers: headers)
    }

    /// Redeems a code for the native app.
    func redeem(
        _ code: String, verifier: String? = testVerifier, redirectURI: String = appRedirectURI,
        clientID: String = appClientID, headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        var form: FormParameters = [
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI,
            "client_id": clientID,
        ]
        if let verifier { form["code_verifier"] = verifier }
        return try await token(form, headers: headers)
    }

    /// Signs Alice in (code issued and redeemed) and returns the tokens.
    func signIn(scopes: [String] = fullScopes, dpop: DPoPKey? = nil) async throws -> TokenSet {
        let code = code(scopes: scopes)
        var headers: HTTPHeaders = [:]
        if let dpop { headers["DPoP"] = try dpop.proof(self) }
        let response = try await redeem(code, headers: headers)
        try #require(response.status == 200, "sign-in failed: \(response.bodyText ?? "")")
        return TokenSet(body: try response.jsonBody())
    }

    /// Refreshes with the native app.
    func refresh(
        _ refreshToken: String, scope: String? = nil, clientID: String = appClientID,
        headers: HTTPHeaders = [:]
    )
        async throws -> HTTPResponse
    {
        var form: FormParameters = [
            "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientID,
        ]
        if let scope { form["scope"] = scope }
        return try await token(form, headers: headers)
    }

    /// `GET /userinfo` with a bearer token.
    func userInfo(bearer token: String) async throws -> HTTPResponse {
        try await get("/userinfo", headers: ["Authorization": "Bearer \(token)"])
    }

    /// `POST /oauth/revoke` for the native app.
    func revoke(_ token: String, hint: String? = nil, clientID: String = appClientID) async throws
        -> HTTPResponse
    {
        var form: FormParameters = ["token": token, "client_id": clientID]
        if let hint { form["token_type_hint"] = hint }
        return try await postForm("/oauth/revoke", form)
    }

    /// The issuer's published keys.
    func publishedKeys() async throws -> JWKCollection {
        JWKCollection(try JWKSet.parse(try await get("/.well-known/jwks.json").body))
    }
}

/// The `error` of an OAuth error response.
func oauthError(_ response: HTTPResponse) -> String? { (try? response.jsonBody())?["error"]?.stringValue }

/// The `error_description` of an OAuth error response.
func oauthErrorDescription(_ response: HTTPResponse) -> String {
    (try? response.jsonBody())?["error_description"]?.stringValue ?? ""
}

/// Expects an OAuth error response with exactly this status and code.
func expectError(
    _ response: HTTPResponse, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "body: \(response.bodyText ?? "")", sourceLocation: sourceLocation)
    #expect(oauthError(response) == code, "body: \(response.bodyText ?? "")", sourceLocation: sourceLocation)
    #expect(response.headers["Cache-Control"] == "no-store", sourceLocation: sourceLocation)
}

/// The claims of a JWT, unverified.
func claims(of token: String) throws -> JSONValue { try JWT.decodeUnverified(token).claims }

/// HTTP Basic credentials as RFC 6749 §2.3.1 builds them (form-encoded, then base64).
func basicAuthorization(_ id: String, _ secret: String) -> String {
    let pair = FormURLEncoding.escape(id) + ":" + FormURLEncoding.escape(secret)
    return "Basic " + Base64URL.encode(Array(pair.utf8)).base64URLToStandard()
}

extension String {
    /// Standard padded base64 from base64url.
    func base64URLToStandard() -> String {
        var text = replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }
}
