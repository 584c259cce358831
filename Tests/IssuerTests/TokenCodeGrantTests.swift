import Cryptography
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

@Suite("Token endpoint: authorization code grant")
struct TokenCodeGrantTests {
    /// A code redeems for access, ID and refresh tokens; the ID token verifies against the JWKS
    /// and carries the nonce, at_hash, azp, sid and auth_time of the code.
    @Test("code redemption happy path", arguments: Deployment.allCases)
    func happyPath(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let code = fixture.code()
            let response = try await fixture.redeem(code)
            #expect(response.status == 200)
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(response.headers["Pragma"] == "no-cache")
            let body = try response.jsonBody()
            #expect(body["token_type"] == "Bearer")
            #expect(body["expires_in"] == .int(3600))
            #expect(body["scope"] == "openid profile email offline_access")
            #expect(body["refresh_token"]?.stringValue?.count == 43)
            let accessToken = try #require(body["access_token"]?.stringValue)
            let idToken = try #require(body["id_token"]?.stringValue)

            let now = fixture.clock.now()
            let verified = try JWT.verify(
                idToken, keys: try await fixture.publishedKeys(),
                validation: .idToken(
                    issuer: fixture.baseURL, clientID: appClientID, nonce: "n-0S6_WzA2Mj", now: now))
            #expect(verified.claims.subject == aliceID)
            #expect(verified.claims.authorizedParty == appClientID)
            #expect(verified.claims["sid"] == "session-1")
            #expect(verified.claims["auth_time"] == .int(now - 5))
            #expect(verified.claims["email"] == "alice@example.com")
            let expectedHash = Base64URL.encode(SHA256.hash(Array(accessToken.utf8)).prefix(16))
            #expect(verified.claims["at_hash"] == .string(expectedHash))

            let access = try claims(of: accessToken)
            #expect(access["sub"] == .string(aliceID))
            #expect(access["client_id"] == .string(appClientID))
            #expect(access["aud"] == ["https://api.example.com", .string(fixture.baseURL + "/userinfo")])
            #expect(access["cnf"] == nil)
        }
    }

    /// Auth0's SDK posts the same parameters as JSON; the answer is the same.
    @Test("JSON body", arguments: Deployment.allCases)
    func jsonBody(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let response = try await fixture.postJSON(
                "/oauth/token",
                [
                    "grant_type": "authorization_code", "code": .string(fixture.code()),
                    "redirect_uri": .string(appRedirectURI), "client_id": .string(appClientID),
                    "code_verifier": .string(testVerifier),
                ])
            #expect(response.status == 200)
            #expect(try response.jsonBody()["id_token"]?.stringValue != nil)
        }
    }

    /// A second redemption fails and revokes what the first issued: the refresh token no longer
    /// refreshes and the access token is refused at userinfo (RFC 6749 §4.1.2).
    @Test("code reuse revokes the first redemption's tokens", arguments: Deployment.allCases)
    func reuse(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let code = fixture.code()
            let first = TokenSet(body: try await fixture.redeem(code).jsonBody())
            #expect(try await fixture.userInfo(bearer: first.accessToken).status == 200)

            let second = try await fixture.redeem(code)
            expectError(second, 400, "invalid_grant")
            #expect(oauthErrorDescription(second).contains("already used"))

            expectError(try await fixture.refresh(try #require(first.refreshToken)), 400, "invalid_grant")
            let userInfo = try await fixture.userInfo(bearer: first.accessToken)
            #expect(userInfo.status == 401)
            #expect(userInfo.headers["WWW-Authenticate"]?.contains("error=\"invalid_token\"") == true)
        }
    }

    /// A code lives 60 s: redeemable at 59 s, refused at 60 s.
    @Test("code expiry at 60 s", arguments: Deployment.allCases)
    func expiry(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let early = fixture.code()
            let late = fixture.code()
            fixture.clock.advance(by: 59)
            #expect(try await fixture.redeem(early).status == 200)
            fixture.clock.advance(by: 1)
            let response = try await fixture.redeem(late)
            expectError(response, 400, "invalid_grant")
            #expect(oauthErrorDescription(response).contains("expired"))
        }
    }

    /// PKCE: a missing, malformed or wrong verifier fails invalid_grant, and so does a verifier
    /// for a code issued without a challenge (no downgrade either way).
    @Test("PKCE verifier checks", arguments: Deployment.allCases)
    func verifier(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let missing = try await fixture.redeem(fixture.code(), verifier: nil)
            expectError(missing, 400, "invalid_grant")
            #expect(oauthErrorDescription(missing).contains("code_verifier is required"))

            let wrong = try await fixture.redeem(fixture.code(), verifier: String(repeating: "a", count: 43))
            expectError(wrong, 400, "invalid_grant")
            #expect(oauthErrorDescription(wrong).contains("does not match"))

            let short = try await fixture.redeem(fixture.code(), verifier: "too-short")
            expectError(short, 400, "invalid_grant")
            #expect(oauthErrorDescription(short).contains("43 to 128"))

            let downgrade = try await fixture.redeem(fixture.code(challenge: nil), verifier: testVerifier)
            expectError(downgrade, 400, "invalid_grant")
            #expect(oauthErrorDescription(downgrade).contains("without a code_challenge"))
        }
    }

    /// A failed attempt uses the code up: the right verifier afterwards is refused too.
    @Test("a failed attempt uses the code up", arguments: Deployment.allCases)
    func failedAttemptConsumes(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let code = fixture.code()
            expectError(
                try await fixture.redeem(code, verifier: String(repeating: "b", count: 43)), 400,
                "invalid_grant")
            expectError(try await fixture.redeem(code), 400, "invalid_grant")
        }
    }

    /// redirect_uri must equal the authorization request's exactly; a missing one is a bad request
    /// that leaves the code unused.
    @Test("redirect_uri mismatch", arguments: Deployment.allCases)
    func redirectURI(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let mismatch = try await fixture.redeem(fixture.code(), redirectURI: appRedirectURI + "/")
            expectError(mismatch, 400, "invalid_grant")
            #expect(oauthErrorDescription(mismatch).contains("redirect_uri"))

            let code = fixture.code()
            let missing = try await fixture.token([
                "grant_type": "authorization_code", "code": code, "client_id": appClientID,
                "code_verifier": testVerifier,
            ])
            expectError(missing, 400, "invalid_request")
            #expect(try await fixture.redeem(code).status == 200)
        }
    }

    /// A code issued to one client cannot be redeemed by another.
    @Test("code of another client", arguments: Deployment.allCases)
    func wrongClient(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let code = fixture.code(clientID: "narrow", redirectURI: "com.example.narrow://cb")
            let response = try await fixture.redeem(code, redirectURI: "com.example.narrow://cb")
            expectError(response, 400, "invalid_grant")
            #expect(oauthErrorDescription(response).contains("another client"))
        }
    }

    /// An unknown code is invalid_grant.
    @Test("unknown code", arguments: Deployment.allCases)
    func unknownCode(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            expectError(try await fixture.redeem("not-a-code"), 400, "invalid_grant")
        }
    }

    /// Without offline_access no refresh token; without openid no ID token; a client without the
    /// refresh grant gets none either.
    @Test("tokens follow the scope", arguments: Deployment.allCases)
    func scopeDecidesTokens(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let plain = try await fixture.signIn(scopes: ["openid", "profile"])
            #expect(plain.idToken != nil)
            #expect(plain.refreshToken == nil)
            let api = try await fixture.signIn(scopes: ["read:items", "offline_access"])
            #expect(api.idToken == nil)
            #expect(api.refreshToken != nil)
            let narrowCode = fixture.code(clientID: "narrow", redirectURI: "com.example.narrow://cb")
            let narrow = try await fixture.redeem(
                narrowCode, redirectURI: "com.example.narrow://cb", clientID: "narrow")
            #expect(narrow.status == 200)
            #expect(try narrow.jsonBody()["refresh_token"] == nil)
        }
    }

    /// rp-id_token-sig-none: the code exchange returns an unsigned ID token.
    @Test("RP fault: unsigned ID token", arguments: Deployment.allCases)
    func faultSignatureNone(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .idTokenUnsigned))
            let idToken = try #require(try await fixture.signIn().idToken)
            #expect(try JWT.decodeUnverified(idToken).header["alg"] == "none")
            #expect(idToken.hasSuffix("."))
            // One occurrence only.
            let next = try #require(try await fixture.signIn().idToken)
            #expect(try JWT.decodeUnverified(next).header["alg"] == "ES256")
        }
    }

    /// rp-nonce-invalid: the ID token's nonce is not the one of the code.
    @Test("RP fault: wrong nonce", arguments: Deployment.allCases)
    func faultNonce(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .nonceInvalid))
            let idToken = try #require(try await fixture.signIn().idToken)
            let nonce = try claims(of: idToken)["nonce"]
            #expect(nonce != nil)
            #expect(nonce != "n-0S6_WzA2Mj")
        }
    }

    /// rp-id_token-bad-at_hash: the ID token's at_hash is the access token's with a "1" appended,
    /// as the conformance suite spoils it; the next ID token's is right again.
    @Test("RP fault: wrong at_hash", arguments: Deployment.allCases)
    func faultBadAccessTokenHash(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .idTokenBadAccessTokenHash))
            let spoiled = try await fixture.signIn()
            let right = Base64URL.encode(SHA256.hash(spoiled.accessToken).prefix(16))
            #expect(try claims(of: #require(spoiled.idToken))["at_hash"] == .string(right + "1"))
            let next = try await fixture.signIn()
            let nextHash = Base64URL.encode(SHA256.hash(next.accessToken).prefix(16))
            #expect(try claims(of: #require(next.idToken))["at_hash"] == .string(nextHash))
        }
    }

    /// rp-id_token-missing-at_hash: the ID token has no at_hash, once.
    @Test("RP fault: no at_hash", arguments: Deployment.allCases)
    func faultMissingAccessTokenHash(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .idTokenAccessTokenHashMissing))
            let idToken = try #require(try await fixture.signIn().idToken)
            let members = try #require(try claims(of: idToken).objectValue)
            #expect(members["at_hash"] == nil)
            #expect(members["nonce"] != nil)
            let next = try #require(try await fixture.signIn().idToken)
            #expect(try claims(of: next)["at_hash"] != nil)
        }
    }

    /// rp-id_token-kid-absent-multiple-jwks: a kid-less ID token while the JWKS shows two EC keys.
    @Test("RP fault: no kid, two keys", arguments: Deployment.allCases)
    func faultKidAbsent(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .idTokenKidAbsentMultipleKeys))
            let idToken = try #require(try await fixture.signIn().idToken)
            #expect(try JWT.decodeUnverified(idToken).header["kid"] == nil)
            let set = try JWKSet.parse(try await fixture.get("/.well-known/jwks.json").body)
            #expect(set.keys.count == 2)
            #expect(set.keys.allSatisfy { $0.keyType == .ec })
        }
    }
}
