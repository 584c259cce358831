import AppleID
import HTTPCore
import JSON
import TestSupport
import Testing

@Suite("POST /auth/revoke")
struct RevokeTests {
    /// Revoking the refresh token: 200 empty, state revoked, refresh token and pending codes dead, next sign-in first.
    @Test("revoke a refresh token", arguments: Deployment.allCases)
    func revokeRefreshToken(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let credential = try fixture.authorize()
            let refreshToken = try #require(
                try await fixture.redeem(credential.authorizationCode).json()["refresh_token"]?.stringValue)
            let pending = try fixture.authorize().authorizationCode
            let response = try await fixture.postForm(
                "/auth/revoke",
                [
                    "client_id": appA, "client_secret": try fixture.secret(), "token": refreshToken,
                    "token_type_hint": "refresh_token",
                ])
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(fixture.provider.credentialState(email: "alice@example.com", bundleID: appA) == .revoked)
            #expect(fixture.provider.credentialState(forUserID: credential.user, bundleID: appA) == .revoked)

            let refreshed = try await fixture.postForm(
                "/auth/token",
                [
                    "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": appA,
                    "client_secret": try fixture.secret(),
                ])
            #expect(
                try refreshed.json()
                    == [
                        "error": "invalid_grant",
                        "error_description": "The token has expired or has been revoked.",
                    ])
            #expect(
                try await fixture.redeem(pending).json()
                    == [
                        "error": "invalid_grant",
                        "error_description": "The code has expired or has been revoked.",
                    ])

            let next = try fixture.authorize()
            #expect(next.fullName?.givenName == "Alice")
            #expect(
                fixture.provider.credentialState(email: "alice@example.com", bundleID: appA) == .authorized)
        }
    }

    /// Revoking an access token ends the authorization too, with or without a hint.
    @Test("revoke an access token", arguments: Deployment.allCases)
    func revokeAccessToken(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let tokens = try await fixture.redeem(try fixture.authorize().authorizationCode).json()
            let accessToken = try #require(tokens["access_token"]?.stringValue)
            let response = try await fixture.postForm(
                "/auth/revoke",
                ["client_id": appA, "client_secret": try fixture.secret(), "token": accessToken])
            #expect(response.status == 200)
            #expect(fixture.provider.credentialState(email: "alice@example.com", bundleID: appA) == .revoked)
        }
    }

    /// Unknown tokens are 200 (RFC 7009 §2.2); a missing token is `invalid_request`; a bad secret `invalid_client`.
    @Test("revoke input checks", arguments: Deployment.allCases)
    func inputs(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let tokens = try await fixture.redeem(try fixture.authorize().authorizationCode).json()
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            let unknown = try await fixture.postForm(
                "/auth/revoke",
                ["client_id": appA, "client_secret": try fixture.secret(), "token": "r-unknown"])
            #expect(unknown.status == 200)
            let missing = try await fixture.postForm(
                "/auth/revoke", ["client_id": appA, "client_secret": try fixture.secret()])
            #expect(missing.status == 400)
            #expect(try missing.json() == ["error": "invalid_request"])
            let badSecret = try await fixture.postForm(
                "/auth/revoke", ["client_id": appA, "client_secret": "garbage", "token": refreshToken])
            #expect(try badSecret.json() == ["error": "invalid_client"])
            _ = try fixture.authorize(bundleID: appB)
            let otherClient = try await fixture.postForm(
                "/auth/revoke",
                ["client_id": appB, "client_secret": try fixture.secret(appB), "token": refreshToken])
            #expect(try otherClient.json()["error"] == "invalid_grant")
            #expect(
                fixture.provider.credentialState(email: "alice@example.com", bundleID: appA) == .authorized)
        }
    }
}
