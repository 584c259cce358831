import Cryptography
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

/// `token_endpoint_auth_method` per client (OpenID Connect Core §9): the registered method is
/// the only one accepted, and `private_key_jwt` assertions are verified with the client's keys.
@Suite("client authentication methods")
struct ClientAuthenticationTests {
    static let clientKey = try! P256PrivateKey(random: SeededRandom(seed: 21))
    static let signer = try! JWSSigner(key: .p256(clientKey), algorithm: .es256, keyID: "signer-1")
    static let strangerSigner = try! JWSSigner(
        key: .p256(try! P256PrivateKey(random: SeededRandom(seed: 22))), algorithm: .es256, keyID: "signer-1")

    /// The token test tenant, with a client per registered method.
    static func tenant() -> Tenant {
        var tenant = tokenTestTenant()
        var signed = ClientRegistration(id: "signed", redirectURIs: ["https://signed.example/cb"])
        signed.keys = JWKSet(keys: [signer.publicJWK])
        signed.authenticationMethod = .privateKeyJWT
        var poster = ClientRegistration(
            id: "poster", secret: "poster-secret", redirectURIs: ["https://poster.example/cb"])
        poster.authenticationMethod = .clientSecretPost
        var basic = ClientRegistration(
            id: "basic", secret: "basic-secret", redirectURIs: ["https://basic.example/cb"])
        basic.authenticationMethod = .clientSecretBasic
        tenant.clients += [signed, poster, basic]
        return tenant
    }

    static func codeForm(_ fixture: IssuerFixture, client: String) -> FormParameters {
        let redirect = "https://\(client).example/cb"
        return [
            "grant_type": "authorization_code", "redirect_uri": redirect, "code_verifier": testVerifier,
            "code": .init(fixture.code(clientID: client, redirectURI: redirect)),
        ]
    }

    static func assertion(
        _ fixture: IssuerFixture, signer: JWSSigner = signer, audience: String? = nil, id: String = "jti-1",
        lifetime: Int64 = 300, issuedAt: Int64? = nil
    ) throws -> String {
        try ClientAssertion.make(
            signer: signer, clientID: "signed", audience: audience ?? fixture.baseURL,
            issuedAt: issuedAt ?? fixture.clock.now(), lifetime: lifetime, id: id)
    }

    static func withAssertion(_ form: FormParameters, _ assertion: String) -> FormParameters {
        var form = form
        form["client_assertion_type"] = .init(ClientAssertion.type)
        form["client_assertion"] = .init(assertion)
        return form
    }

    /// A signed assertion for the issuer (or its token endpoint) signs the client in; one
    /// signed by another key, for another audience, expired, or presented twice is 401
    /// invalid_client, and says why.
    @Test("private_key_jwt", arguments: Deployment.allCases)
    func privateKeyJWT(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: Self.tenant()) { fixture in
            func attempt(_ assertion: String) async throws -> HTTPResponse {
                try await fixture.token(
                    Self.withAssertion(Self.codeForm(fixture, client: "signed"), assertion))
            }
            let good = try Self.assertion(fixture)
            let accepted = try await attempt(good)
            #expect(accepted.status == 200, "\(accepted.bodyText ?? "")")

            let replayed = try await attempt(good)
            expectError(replayed, 401, "invalid_client")
            #expect(oauthErrorDescription(replayed).contains("jti was used before"))

            let atEndpoint = try await attempt(
                try Self.assertion(fixture, audience: fixture.baseURL + "/oauth/token", id: "jti-2"))
            #expect(atEndpoint.status == 200, "\(atEndpoint.bodyText ?? "")")

            let cases: [(String, String)] = [
                (try Self.assertion(fixture, signer: Self.strangerSigner, id: "jti-3"), "does not verify"),
                (try Self.assertion(fixture, audience: "https://elsewhere.test", id: "jti-4"), "aud must be"),
                (
                    try Self.assertion(fixture, id: "jti-5", issuedAt: fixture.clock.now() - 900),
                    "expired"
                ),
            ]
            for (assertion, reason) in cases {
                let refused = try await attempt(assertion)
                expectError(refused, 401, "invalid_client")
                #expect(oauthErrorDescription(refused).contains(reason), "\(oauthErrorDescription(refused))")
                #expect(refused.headers["WWW-Authenticate"] == nil)
            }
        }
    }

    /// The assertion's type must be RFC 7523's, the client_id beside it must be its client,
    /// and an assertion with a secret is two methods at once.
    @Test("private_key_jwt request shape", arguments: Deployment.allCases)
    func assertionShape(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: Self.tenant()) { fixture in
            var wrongType = Self.withAssertion(
                Self.codeForm(fixture, client: "signed"), try Self.assertion(fixture, id: "a"))
            wrongType["client_assertion_type"] = "urn:example:saml"
            expectError(try await fixture.token(wrongType), 401, "invalid_client")

            var otherID = Self.withAssertion(
                Self.codeForm(fixture, client: "signed"), try Self.assertion(fixture, id: "b"))
            otherID["client_id"] = "web"
            expectError(try await fixture.token(otherID), 401, "invalid_client")

            var withSecret = Self.withAssertion(
                Self.codeForm(fixture, client: "signed"), try Self.assertion(fixture, id: "c"))
            withSecret["client_secret"] = "x"
            expectError(try await fixture.token(withSecret), 400, "invalid_request")

            var missing = Self.codeForm(fixture, client: "signed")
            missing["client_assertion_type"] = .init(ClientAssertion.type)
            expectError(try await fixture.token(missing), 401, "invalid_client")
        }
    }

    /// A client registered for one method is refused the others, by a message that names the
    /// registered method and the one used; Basic tries get a Basic challenge.
    @Test("the registered method is the only one", arguments: Deployment.allCases)
    func registeredMethod(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: Self.tenant()) { fixture in
            let viaBasic = try await fixture.token(
                Self.codeForm(fixture, client: "poster"),
                headers: ["Authorization": basicAuthorization("poster", "poster-secret")])
            expectError(viaBasic, 401, "invalid_client")
            #expect(
                oauthErrorDescription(viaBasic)
                    == "poster is registered for client_secret_post, but the request used client_secret_basic"
            )
            #expect(viaBasic.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)

            var viaPost = Self.codeForm(fixture, client: "poster")
            viaPost["client_id"] = "poster"
            viaPost["client_secret"] = "poster-secret"
            #expect(try await fixture.token(viaPost).status == 200)

            var basicViaPost = Self.codeForm(fixture, client: "basic")
            basicViaPost["client_id"] = "basic"
            basicViaPost["client_secret"] = "basic-secret"
            let refused = try await fixture.token(basicViaPost)
            expectError(refused, 401, "invalid_client")
            #expect(oauthErrorDescription(refused).contains("registered for client_secret_basic"))

            var signedWithoutAssertion = Self.codeForm(fixture, client: "signed")
            signedWithoutAssertion["client_id"] = "signed"
            let anonymous = try await fixture.token(signedWithoutAssertion)
            expectError(anonymous, 401, "invalid_client")
            #expect(oauthErrorDescription(anonymous).contains("authenticates with private_key_jwt"))

            // A public client sending an assertion is refused as one sending a secret is.
            var publicSigned = Self.withAssertion(
                ["grant_type": "refresh_token", "refresh_token": "x"],
                try ClientAssertion.make(
                    signer: Self.signer, clientID: appClientID, audience: fixture.baseURL,
                    issuedAt: fixture.clock.now(), id: "p"))
            publicSigned["client_id"] = .init(appClientID)
            let publicRefused = try await fixture.token(publicSigned)
            expectError(publicRefused, 401, "invalid_client")
            #expect(oauthErrorDescription(publicRefused).contains("public client"))
        }
    }

    /// Discovery offers every method, and the algorithms an assertion may use (Discovery §3).
    @Test("discovery lists private_key_jwt", arguments: Deployment.allCases)
    func discovery(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let document = try await fixture.get("/.well-known/openid-configuration").jsonBody()
            for member in [
                "token_endpoint_auth_methods_supported", "revocation_endpoint_auth_methods_supported",
            ] {
                #expect(
                    document[member]?.arrayValue?.compactMap(\.stringValue)
                        == ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"])
            }
            #expect(
                document["token_endpoint_auth_signing_alg_values_supported"]?.arrayValue?.compactMap(
                    \.stringValue)
                    == ["ES256", "RS256", "PS256"])
        }
    }
}
