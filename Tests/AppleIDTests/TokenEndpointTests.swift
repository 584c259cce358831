import AppleID
import Clocks
import Cryptography
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

@Suite("POST /auth/token")
struct TokenEndpointTests {
    /// A code redeems once for access, refresh and identity tokens; the id_token matches the authorization.
    @Test("code redemption", arguments: Deployment.allCases)
    func redemption(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let nonce = AppleNonce.sha256Hex("raw")
            let credential = try fixture.authorize(nonce: nonce)
            fixture.clock.advance(by: 30)
            let response = try await fixture.redeem(credential.authorizationCode)
            #expect(response.status == 200)
            #expect(response.headers["Cache-Control"] == "no-store")
            let body = try response.json()
            #expect(
                Set(body.objectValue?.keys.map { $0 } ?? [])
                    == ["access_token", "token_type", "expires_in", "refresh_token", "id_token"])
            #expect(body["token_type"] == "Bearer")
            #expect(body["expires_in"] == 3600)
            let accessToken = try #require(body["access_token"]?.stringValue)
            #expect(accessToken.hasPrefix("a"))
            #expect(body["refresh_token"]?.stringValue?.hasPrefix("r") == true)
            let idToken = try #require(body["id_token"]?.stringValue)
            let claims = try AppleIdentityToken.verify(
                idToken, keys: try await fixture.fetchKeys(), audience: appA, now: fixture.clock.now(),
                expectedNonceHash: nonce)
            #expect(claims.subject == credential.user)
            #expect(claims.issuedAt == testEpoch + 30)
            #expect(claims.expiresAt == testEpoch + 30 + 600)
            #expect(claims.authTime == testEpoch)
            #expect(claims.email == "alice@example.com")
            let atHash = Base64URL.encode(Array(SHA256.hash(accessToken).prefix(16)))
            #expect(claims.claims["at_hash"] == .string(atHash))
        }
    }

    /// A second redemption of the same code is `invalid_grant` "The code has already been used."
    @Test("code reuse", arguments: Deployment.allCases)
    func reuse(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let code = try fixture.authorize().authorizationCode
            #expect(try await fixture.redeem(code).status == 200)
            let again = try await fixture.redeem(code)
            #expect(again.status == 400)
            #expect(
                try again.json() == [
                    "error": "invalid_grant", "error_description": "The code has already been used.",
                ])
            #expect(again.headers["Cache-Control"] == "no-store")
        }
    }

    /// Concurrent redemptions of one code: exactly one succeeds, the others are told it was used.
    @Test("concurrent code redemption", arguments: Deployment.allCases)
    func concurrentReuse(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let code = try fixture.authorize().authorizationCode
            let statuses = try await withThrowingTaskGroup(of: (Int, JSONValue).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let response = try await fixture.redeem(code)
                        return (response.status, try response.json())
                    }
                }
                return try await group.reduce(into: [(Int, JSONValue)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1)
            let refused = statuses.filter { $0.0 != 200 }.map(\.1)
            #expect(refused.count == 7)
            #expect(refused.allSatisfy { $0["error_description"] == "The code has already been used." })
        }
    }

    /// A code is good for 299 seconds and expired at 300; an unknown code reads the same.
    @Test("code expiry after 5 minutes", arguments: Deployment.allCases)
    func expiry(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let expired: JSONValue = [
                "error": "invalid_grant", "error_description": "The code has expired or has been revoked.",
            ]
            let early = try fixture.authorize().authorizationCode
            let late = try fixture.authorize().authorizationCode
            fixture.clock.advance(by: 299)
            #expect(try await fixture.redeem(early).status == 200)
            fixture.clock.advance(by: 1)
            let response = try await fixture.redeem(late)
            #expect(response.status == 400)
            #expect(try response.json() == expired)
            #expect(try await fixture.redeem("c0123.0.abcd.unknown").json() == expired)
        }
    }

    /// A code issued for another client is `invalid_grant`, and stays good for its own client.
    @Test("code for another client_id", arguments: Deployment.allCases)
    func otherClient(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            _ = try fixture.authorize(bundleID: appB, team: teamA)
            let code = try fixture.authorize(bundleID: appA).authorizationCode
            let response = try await fixture.redeem(code, clientID: appB)
            #expect(response.status == 400)
            #expect(
                try response.json()
                    == [
                        "error": "invalid_grant",
                        "error_description":
                            "client_id mismatch. The code was not issued to com.example.beta.",
                    ])
            #expect(try await fixture.redeem(code, clientID: appA).status == 200)
        }
    }

    /// Grant types other than authorization_code and refresh_token are `unsupported_grant_type`.
    @Test("unsupported grant_type", arguments: Deployment.allCases)
    func unsupportedGrant(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            _ = try fixture.authorize()
            for grantType in [
                "password", "client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange",
            ] {
                let response = try await fixture.postForm(
                    "/auth/token",
                    ["grant_type": grantType, "client_id": appA, "client_secret": try fixture.secret()])
                #expect(response.status == 400)
                #expect(try response.json() == ["error": "unsupported_grant_type"], "\(grantType)")
            }
        }
    }

    /// Each missing required field is `invalid_request`, named in the reason header.
    @Test("missing fields", arguments: Deployment.allCases)
    func missingFields(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let code = try fixture.authorize().authorizationCode
            let complete: [String: String] = [
                "grant_type": "authorization_code", "code": code, "client_id": appA,
                "client_secret": try fixture.secret(),
            ]
            for field in ["grant_type", "code", "client_id", "client_secret"] {
                var form = FormParameters()
                for (name, value) in complete.sorted(by: { $0.key < $1.key }) where name != field {
                    form.append(name, value)
                }
                let response = try await fixture.postForm("/auth/token", form)
                #expect(response.status == 400)
                #expect(try response.json() == ["error": "invalid_request"], "\(field)")
                #expect(response.headers[AppleIDProvider.reasonHeader] == "\(field) is required")
            }
            let refresh = try await fixture.postForm(
                "/auth/token",
                ["grant_type": "refresh_token", "client_id": appA, "client_secret": try fixture.secret()])
            #expect(try refresh.json() == ["error": "invalid_request"])
            #expect(refresh.headers[AppleIDProvider.reasonHeader] == "refresh_token is required")
            // The code was never consumed by the failed attempts.
            #expect(try await fixture.redeem(code).status == 200)
        }
    }

    /// A refresh gives a new access token and id_token but no refresh token; an unknown one is `invalid_grant`.
    @Test("refresh grant", arguments: Deployment.allCases)
    func refresh(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let credential = try fixture.authorize(nonce: "n0")
            let tokens = try await fixture.redeem(credential.authorizationCode).json()
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            fixture.clock.advance(by: 86_400)
            let response = try await fixture.postForm(
                "/auth/token",
                [
                    "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": appA,
                    "client_secret": try fixture.secret(),
                ])
            #expect(response.status == 200)
            #expect(response.headers["Cache-Control"] == "no-store")
            let body = try response.json()
            #expect(body["refresh_token"] == nil)
            #expect(body["token_type"] == "Bearer")
            #expect(body["expires_in"] == 3600)
            #expect(body["access_token"] != tokens["access_token"])
            let claims = try AppleIdentityToken.verify(
                try #require(body["id_token"]?.stringValue), keys: try await fixture.fetchKeys(),
                audience: appA,
                now: fixture.clock.now(), expectedNonceHash: nil)
            #expect(claims.subject == credential.user)
            #expect(claims.issuedAt == testEpoch + 86_400)
            #expect(claims.nonce == nil)

            let bogus = try await fixture.postForm(
                "/auth/token",
                [
                    "grant_type": "refresh_token", "refresh_token": "r-not-a-token", "client_id": appA,
                    "client_secret": try fixture.secret(),
                ])
            #expect(bogus.status == 400)
            #expect(
                try bogus.json()
                    == [
                        "error": "invalid_grant",
                        "error_description": "The token has expired or has been revoked.",
                    ])
        }
    }

    /// Stopping to use Apple ID kills the app's pending codes and refresh tokens.
    @Test("stop using Apple ID kills codes and tokens", arguments: Deployment.allCases)
    func stopUsingKillsTokens(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let first = try fixture.authorize()
            let refreshToken = try #require(
                try await fixture.redeem(first.authorizationCode).json()["refresh_token"]?.stringValue)
            let pending = try fixture.authorize().authorizationCode
            fixture.provider.stopUsingAppleID(email: "alice@example.com", bundleID: appA)
            #expect(
                try await fixture.redeem(pending).json()["error_description"]
                    == "The code has expired or has been revoked.")
            let refreshed = try await fixture.postForm(
                "/auth/token",
                [
                    "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": appA,
                    "client_secret": try fixture.secret(),
                ])
            #expect(try refreshed.json()["error"] == "invalid_grant")
        }
    }
}
