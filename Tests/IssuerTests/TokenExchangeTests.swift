import Cryptography
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

/// A subject token from the partner provider.
func partnerIDToken(
    subject: String = "partner-user-1", audience: String = partnerAudience, issuer: String = partnerIssuer,
    now: Int64, lifetime: Int64 = 600, email: String? = "pat@partner.example",
    signer: JWSSigner = partnerSigner
) throws -> String {
    var claims = JWTClaims(
        issuer: issuer, subject: subject, audience: .single(audience), expiresAt: now + lifetime,
        issuedAt: now)
    if let email {
        claims.otherClaims["email"] = .string(email)
        claims.otherClaims["email_verified"] = "true"
    }
    return try JWT.sign(claims, signer: signer)
}

extension IssuerFixture {
    /// A token exchange by the native app.
    func exchange(
        _ subjectToken: String, type: String = TokenTypeIdentifier.idToken, extra: FormParameters = [:]
    ) async throws -> HTTPResponse {
        var form: FormParameters = [
            "grant_type": .init(GrantType.tokenExchange), "client_id": appClientID,
            "subject_token": subjectToken,
            "subject_token_type": type,
        ]
        for pair in extra { form[pair.name] = pair.value }
        return try await token(form)
    }

    /// The user with this id, from the admin API.
    func adminUser(_ id: String) async throws -> JSONValue? {
        try await get("/_admin/users").jsonBody()["users"]?.arrayValue?.first { $0["user_id"] == .string(id) }
    }
}

/// A resolver standing in for the Apple connection.
struct FixedResolver: SubjectTokenResolver {
    func resolve(_ subject: SubjectToken) async throws(OAuthError) -> ExternalIdentity {
        guard subject.token == "good-code" else {
            throw Issuer.subjectTokenRejected("Invalid authorization code", status: 403)
        }
        return ExternalIdentity(
            connection: "apple", subject: "000123.apple", email: "relay@privaterelay.appleid.com")
    }
}

@Suite("Token endpoint: RFC 8693 token exchange")
struct TokenExchangeTests {
    /// An ID token of a trusted provider creates the user `<connection>|<sub>` with the
    /// user_profile's name and issues tokens, with issued_token_type and the granted scope.
    @Test("exchange creates a user with the profile's name", arguments: Deployment.allCases)
    func newUser(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let subject = try partnerIDToken(now: fixture.clock.now())
            let response = try await fixture.exchange(
                subject, extra: ["user_profile": #"{"name":{"firstName":"Pat","lastName":"Doe"}}"#])
            #expect(response.status == 200, "\(response.bodyText ?? "")")
            let body = try response.jsonBody()
            #expect(body["issued_token_type"] == .string(TokenTypeIdentifier.accessToken))
            #expect(body["token_type"] == "Bearer")
            #expect(body["refresh_token"] != nil)
            #expect(body["scope"] == "openid profile email offline_access read:items write:items")
            let idToken = try claims(of: try #require(body["id_token"]?.stringValue))
            #expect(idToken["sub"] == "partner|partner-user-1")
            #expect(idToken["name"] == "Pat Doe")
            #expect(idToken["nonce"] == nil)
            let access = try claims(of: try #require(body["access_token"]?.stringValue))
            #expect(access["aud"]?.arrayValue?.first == "https://api.example.com")
            let user = try #require(try await fixture.adminUser("partner|partner-user-1"))
            #expect(user["given_name"] == "Pat")
            #expect(user["family_name"] == "Doe")
            #expect(user["email"] == "pat@partner.example")
            #expect(user["email_verified"] == true)
            #expect(user["connection"] == "partner")
        }
    }

    /// An existing user with a name keeps it; an existing user without one gets the profile's.
    /// An exchange with a DPoP proof binds its tokens to the key. The exchange is checked on the
    /// spot and finished later (`ImmediateAnswer.later`): had the proof been checked again when
    /// the work resumed, its `jti` would have been refused as a replay.
    @Test("exchange with a DPoP proof", arguments: Deployment.allCases)
    func exchangeWithProof(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let form: FormParameters = [
                "grant_type": .init(GrantType.tokenExchange), "client_id": appClientID,
                "subject_token": .init(try partnerIDToken(now: fixture.clock.now())),
                "subject_token_type": .init(TokenTypeIdentifier.idToken),
            ]
            let response = try await fixture.token(form, headers: ["DPoP": try key.proof(fixture)])
            #expect(response.status == 200, "\(response.bodyText ?? "")")
            let body = try response.jsonBody()
            #expect(body["token_type"] == "DPoP")
            let access = try claims(of: try #require(body["access_token"]?.stringValue))
            #expect(access["cnf"] == ["jkt": .string(key.thumbprint)])
        }
    }

    @Test("user_profile only fills a missing name", arguments: Deployment.allCases)
    func existingUsers(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let now = fixture.clock.now()
            let named = try await fixture.exchange(
                try partnerIDToken(subject: "named", now: now),
                extra: ["user_profile": #"{"name":{"firstName":"First"}}"#])
            #expect(named.status == 200)
            let again = try await fixture.exchange(
                try partnerIDToken(subject: "named", now: now),
                extra: ["user_profile": #"{"name":{"firstName":"Second","lastName":"Try"}}"#])
            #expect(again.status == 200)
            #expect(try await fixture.adminUser("partner|named")?["name"] == "First")

            let anonymous = try await fixture.exchange(try partnerIDToken(subject: "anon", now: now))
            #expect(anonymous.status == 200)
            #expect(try await fixture.adminUser("partner|anon")?["name"] == nil)
            let later = try await fixture.exchange(
                try partnerIDToken(subject: "anon", now: now),
                extra: ["user_profile": #"{"name":"Flat Name"}"#])
            #expect(later.status == 200)
            #expect(try await fixture.adminUser("partner|anon")?["name"] == "Flat Name")
        }
    }

    /// A user_profile that is not JSON or has the wrong shape is invalid_request.
    @Test("malformed user_profile", arguments: Deployment.allCases)
    func malformedProfile(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let subject = try partnerIDToken(now: fixture.clock.now())
            for profile in [
                "{name:", #"["Pat"]"#, #"{"name":42}"#, #"{"name":{"firstName":7}}"#, #"{"email":true}"#,
            ] {
                let response = try await fixture.exchange(subject, extra: ["user_profile": .init(profile)])
                expectError(response, 400, "invalid_request")
                #expect(oauthErrorDescription(response).contains("user_profile"), "\(profile)")
            }
        }
    }

    /// A subject token for another audience, from an unknown issuer, expired, or badly signed is
    /// invalid_grant (Auth0's rule, named in the description).
    @Test("subject tokens that do not verify", arguments: Deployment.allCases)
    func invalidSubjects(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let now = fixture.clock.now()
            let stranger = try JWSSigner(
                key: .p256(try P256PrivateKey()), algorithm: .es256, keyID: "partner-1")
            let cases: [(String, String)] = [
                ("audience", try partnerIDToken(audience: "someone-else", now: now)),
                ("issuer", try partnerIDToken(issuer: "https://unknown.example", now: now)),
                ("expired", try partnerIDToken(now: now - 700)),
                ("signature", try partnerIDToken(now: now, signer: stranger)),
                ("not a JWT", "garbage"),
            ]
            for (name, token) in cases {
                let response = try await fixture.exchange(token)
                expectError(response, 400, "invalid_grant")
                #expect(oauthErrorDescription(response).contains("Auth0 native social rule"), "\(name)")
            }
            // Within the 60 s leeway an expired token still verifies.
            #expect(try await fixture.exchange(try partnerIDToken(now: now - 630)).status == 200)
        }
    }

    /// Missing subject parameters, actor tokens and unknown subject types are invalid_request;
    /// the Apple type says its connection is not available.
    @Test("request errors", arguments: Deployment.allCases)
    func requestErrors(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let subject = try partnerIDToken(now: fixture.clock.now())
            let missing = try await fixture.token([
                "grant_type": .init(GrantType.tokenExchange), "client_id": appClientID,
                "subject_token_type": .init(TokenTypeIdentifier.idToken),
            ])
            expectError(missing, 400, "invalid_request")
            #expect(oauthErrorDescription(missing).contains("subject_token is required"))
            let missingType = try await fixture.token([
                "grant_type": .init(GrantType.tokenExchange), "client_id": appClientID,
                "subject_token": subject,
            ])
            expectError(missingType, 400, "invalid_request")

            let unknownType = try await fixture.exchange(subject, type: "urn:example:token-type:saml")
            expectError(unknownType, 400, "invalid_request")
            #expect(oauthErrorDescription(unknownType).contains("unsupported subject_token_type"))

            let apple = try await fixture.exchange(
                "apple-code", type: TokenTypeIdentifier.appleAuthorizationCode)
            expectError(apple, 400, "invalid_request")
            #expect(oauthErrorDescription(apple) == "the Apple connection is not available on this issuer")

            let actorWithoutType = try await fixture.exchange(subject, extra: ["actor_token": "actor"])
            expectError(actorWithoutType, 400, "invalid_request")
            #expect(oauthErrorDescription(actorWithoutType).contains("actor_token_type is required"))
            let actor = try await fixture.exchange(
                subject, extra: ["actor_token": "actor", "actor_token_type": .init(TokenTypeIdentifier.jwt)])
            expectError(actor, 400, "invalid_request")
            #expect(oauthErrorDescription(actor).contains("not supported"))

            let forwarded = try await fixture.exchange(subject, extra: ["auth0-forwarded-for": "203.0.113.7"])
            #expect(forwarded.status == 200)
        }
    }

    /// An audience or resource that is not an API is invalid_target; resource works like audience.
    @Test("audience and resource", arguments: Deployment.allCases)
    func targets(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let subject = try partnerIDToken(now: fixture.clock.now())
            expectError(
                try await fixture.exchange(subject, extra: ["audience": "https://nope.example"]), 400,
                "invalid_target")
            expectError(
                try await fixture.exchange(subject, extra: ["resource": "https://nope.example"]), 400,
                "invalid_target")
            let resource = try await fixture.exchange(subject, extra: ["resource": "https://api.example.com"])
            #expect(resource.status == 200)
        }
    }

    /// Requested scopes must be among openid scopes and the audience's; the granted scope is
    /// echoed only when it differs from the request.
    @Test("scope", arguments: Deployment.allCases)
    func scope(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let subject = try partnerIDToken(now: fixture.clock.now())
            let wider = try await fixture.exchange(subject, extra: ["scope": "openid admin:all"])
            expectError(wider, 400, "invalid_scope")
            let exact = try await fixture.exchange(subject, extra: ["scope": "openid read:items"])
            #expect(exact.status == 200)
            let body = try exact.jsonBody()
            #expect(body["scope"] == nil)
            #expect(body["refresh_token"] == nil)
            #expect(try claims(of: body["access_token"]?.stringValue ?? "")["scope"] == "openid read:items")
        }
    }

    /// A client without the token-exchange grant is unauthorized_client.
    @Test("client without the grant", arguments: Deployment.allCases)
    func unauthorized(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let response = try await fixture.token([
                "grant_type": .init(GrantType.tokenExchange), "client_id": "narrow",
                "subject_token": .init(try partnerIDToken(now: fixture.clock.now())),
                "subject_token_type": .init(TokenTypeIdentifier.idToken),
            ])
            expectError(response, 400, "unauthorized_client")
        }
    }

    /// A registered resolver takes over its subject type (the Apple seam).
    @Test("registered subject token resolver", arguments: Deployment.allCases)
    func resolver(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            fixture.issuer.register(FixedResolver(), for: TokenTypeIdentifier.appleAuthorizationCode)
            let good = try await fixture.exchange(
                "good-code", type: TokenTypeIdentifier.appleAuthorizationCode,
                extra: ["user_profile": #"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#])
            #expect(good.status == 200)
            #expect(try await fixture.adminUser("apple|000123.apple")?["name"] == "Ada Lovelace")
            let bad = try await fixture.exchange(
                "used-code", type: TokenTypeIdentifier.appleAuthorizationCode)
            expectError(bad, 403, "invalid_grant")
        }
    }

    /// A 1 MiB garbage JWT as the subject token is a 400 OAuth error, never a 5xx.
    @Test("huge garbage subject token", arguments: Deployment.allCases)
    func hugeSubject(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let segment = String(repeating: "A", count: 512 * 1024)
            let response = try await fixture.exchange(segment + "." + segment + ".sig")
            expectError(response, 400, "invalid_grant")
        }
    }
}
