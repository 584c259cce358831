import HTTPCore
import Issuer
import JSON
import OAuthCore
import TestSupport
import Testing

@Suite("Revocation endpoint (RFC 7009)")
struct RevocationTests {
    /// Revoking a refresh token revokes its family (the rotated-to token too) and the access
    /// tokens issued in it.
    @Test("revoke a refresh token", arguments: Deployment.allCases)
    func refreshToken(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let signedIn = try await fixture.signIn()
            let original = try #require(signedIn.refreshToken)
            let refreshed = TokenSet(body: try await fixture.refresh(original).jsonBody())
            let response = try await fixture.revoke(original, hint: "refresh_token")
            #expect(response.status == 200)
            #expect(response.headers["Cache-Control"] == "no-store")
            expectError(try await fixture.refresh(try #require(refreshed.refreshToken)), 400, "invalid_grant")
            expectError(try await fixture.userInfo(bearer: refreshed.accessToken), 401, "invalid_token")
            expectError(try await fixture.userInfo(bearer: signedIn.accessToken), 401, "invalid_token")
        }
    }

    /// Revoking an access token kills it at userinfo and leaves the refresh token alone; a wrong
    /// hint does not prevent it.
    @Test("revoke an access token", arguments: Deployment.allCases)
    func accessToken(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let signedIn = try await fixture.signIn()
            #expect(try await fixture.revoke(signedIn.accessToken, hint: "refresh_token").status == 200)
            expectError(try await fixture.userInfo(bearer: signedIn.accessToken), 401, "invalid_token")
            #expect(try await fixture.refresh(try #require(signedIn.refreshToken)).status == 200)
        }
    }

    /// Unknown and already revoked tokens answer 200; another client's token answers 200 and
    /// stays valid.
    @Test("unknown, revoked and foreign tokens", arguments: Deployment.allCases)
    func harmless(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            #expect(try await fixture.revoke("no-such-token").status == 200)
            let signedIn = try await fixture.signIn()
            let token = try #require(signedIn.refreshToken)
            let foreign = try await fixture.postForm(
                "/oauth/revoke", ["token": token],
                headers: ["Authorization": basicAuthorization("web", "web-secret/+:é")])
            #expect(foreign.status == 200)
            let foreignAccess = try await fixture.postForm(
                "/oauth/revoke", ["token": signedIn.accessToken, "token_type_hint": "access_token"],
                headers: ["Authorization": basicAuthorization("web", "web-secret/+:é")])
            #expect(foreignAccess.status == 200)
            #expect(try await fixture.userInfo(bearer: signedIn.accessToken).status == 200)
            let refreshed = try await fixture.refresh(token)
            #expect(refreshed.status == 200)
            let successor = try #require(TokenSet(body: try refreshed.jsonBody()).refreshToken)
            #expect(try await fixture.revoke(successor).status == 200)
            #expect(try await fixture.revoke(successor).status == 200)
        }
    }

    /// A missing token is invalid_request; a failed client authentication is 401.
    @Test("request errors", arguments: Deployment.allCases)
    func errors(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            expectError(
                try await fixture.postForm("/oauth/revoke", ["client_id": appClientID]), 400,
                "invalid_request")
            let wrongSecret = try await fixture.postForm(
                "/oauth/revoke", ["token": "x"],
                headers: ["Authorization": basicAuthorization("web", "wrong")])
            expectError(wrongSecret, 401, "invalid_client")
            expectError(try await fixture.postForm("/oauth/revoke", ["token": "x"]), 401, "invalid_client")
        }
    }
}
