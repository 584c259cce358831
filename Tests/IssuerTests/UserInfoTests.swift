import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

@Suite("UserInfo endpoint")
struct UserInfoTests {
    /// The claims follow the token's scopes: sub always, profile and email claims when granted;
    /// GET and POST both answer.
    @Test("claims by scope", arguments: Deployment.allCases)
    func claimsByScope(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let full = try await fixture.signIn()
            let response = try await fixture.userInfo(bearer: full.accessToken)
            #expect(response.status == 200)
            #expect(response.headers["Cache-Control"] == "no-store")
            let body = try response.jsonBody()
            #expect(body["sub"] == .string(aliceID))
            #expect(body["name"] == "Alice Liddell")
            #expect(body["given_name"] == "Alice")
            #expect(body["email"] == "alice@example.com")
            #expect(body["email_verified"] == true)

            let minimal = try await fixture.signIn(scopes: ["openid"])
            let post = try await fixture.send(
                HTTPRequest(
                    method: .post, url: fixture.baseURL + "/userinfo",
                    headers: ["Authorization": "Bearer \(minimal.accessToken)"]))
            #expect(post.status == 200)
            #expect(try post.jsonBody() == ["sub": .string(aliceID)])
        }
    }

    /// No credentials: 401 with a Bearer challenge and no error code (RFC 6750 §3.1).
    @Test("missing credentials", arguments: Deployment.allCases)
    func missingCredentials(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            for headers: HTTPHeaders in [[:], ["Authorization": "Basic Zm9vOmJhcg=="]] {
                let response = try await fixture.get("/userinfo", headers: headers)
                #expect(response.status == 401)
                let challenge = try #require(response.headers["WWW-Authenticate"])
                #expect(challenge.hasPrefix("Bearer"))
                #expect(!challenge.contains("error="))
            }
        }
    }

    /// A token that is not ours, an ID token, or an expired token is 401 invalid_token.
    @Test("invalid tokens", arguments: Deployment.allCases)
    func invalidTokens(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let signedIn = try await fixture.signIn()
            for token in ["garbage", try #require(signedIn.idToken), signedIn.accessToken + "x"] {
                let response = try await fixture.userInfo(bearer: token)
                expectError(response, 401, "invalid_token")
                #expect(
                    response.headers["WWW-Authenticate"]?.hasPrefix("Bearer error=\"invalid_token\"") == true)
            }
            fixture.clock.advance(by: 3600)
            expectError(try await fixture.userInfo(bearer: signedIn.accessToken), 401, "invalid_token")
        }
    }

    /// A token without openid is 403 insufficient_scope.
    @Test("insufficient scope", arguments: Deployment.allCases)
    func insufficientScope(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let api = try await fixture.signIn(scopes: ["read:items"])
            let response = try await fixture.userInfo(bearer: api.accessToken)
            expectError(response, 403, "insufficient_scope")
            #expect(response.headers["WWW-Authenticate"]?.contains("error=\"insufficient_scope\"") == true)
        }
    }

    /// Tokens signed by a retired key keep working after a rotation.
    @Test("retired signing key", arguments: Deployment.allCases)
    func retiredKey(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let signedIn = try await fixture.signIn()
            try fixture.issuer.rotateSigningKey()
            #expect(try await fixture.userInfo(bearer: signedIn.accessToken).status == 200)
            let fresh = try await fixture.signIn()
            #expect(try await fixture.userInfo(bearer: fresh.accessToken).status == 200)
        }
    }

    /// rp-userinfo-bad-sub-claim: once, userinfo answers a sub that is not the ID token's.
    @Test("RP fault: bad sub", arguments: Deployment.allCases)
    func badSub(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let signedIn = try await fixture.signIn()
            try fixture.issuer.inject(FaultInjection(fault: .userInfoBadSubject))
            let faulty = try await fixture.userInfo(bearer: signedIn.accessToken).jsonBody()
            #expect(faulty["sub"] != nil)
            #expect(faulty["sub"] != .string(aliceID))
            #expect(
                try await fixture.userInfo(bearer: signedIn.accessToken).jsonBody()["sub"] == .string(aliceID)
            )
        }
    }
}
