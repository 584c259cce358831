import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

@Suite("Token endpoint: refresh token grant")
struct TokenRefreshTests {
    /// A refresh returns new tokens and a different refresh token; the refreshed ID token keeps
    /// sub, iss and auth_time and has no nonce (OIDC Core §12.2).
    @Test("refresh rotates the refresh token", arguments: Deployment.allCases)
    func rotation(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let signedIn = try await fixture.signIn()
            let original = try claims(of: try #require(signedIn.idToken))
            fixture.clock.advance(by: 30)
            let response = try await fixture.refresh(try #require(signedIn.refreshToken))
            #expect(response.status == 200)
            #expect(response.headers["Cache-Control"] == "no-store")
            let refreshed = TokenSet(body: try response.jsonBody())
            #expect(refreshed.body["token_type"] == "Bearer")
            #expect(refreshed.refreshToken != nil)
            #expect(refreshed.refreshToken != signedIn.refreshToken)
            #expect(refreshed.accessToken != signedIn.accessToken)
            let idToken = try JWT.verify(
                try #require(refreshed.idToken), keys: try await fixture.publishedKeys(),
                validation: .idToken(
                    issuer: fixture.baseURL, clientID: appClientID, nonce: nil, now: fixture.clock.now()))
            #expect(idToken.claims.subject == original["sub"]?.stringValue)
            #expect(idToken.claims.issuer == original["iss"]?.stringValue)
            #expect(idToken.claims["auth_time"] == original["auth_time"])
            #expect(idToken.claims.nonce == nil)
            #expect(idToken.claims.issuedAt == fixture.clock.now())
            // Unchanged scope: no scope member (RFC 6749 §5.1).
            #expect(refreshed.body["scope"] == nil)
            // The successor works in turn.
            #expect(try await fixture.refresh(try #require(refreshed.refreshToken)).status == 200)
        }
    }

    /// A client without rotation gets no refresh_token on refresh and keeps using the one it
    /// has, which stays active (RFC 6749 §6; what field bug 3 needs).
    @Test("a client without rotation keeps its refresh token", arguments: Deployment.allCases)
    func withoutRotation(deployment: Deployment) async throws {
        var tenant = tokenTestTenant()
        let index = try #require(tenant.clients.firstIndex { $0.id == appClientID })
        tenant.clients[index].refreshRotation = RefreshRotationSettings(.none)
        try await withIssuer(deployment, tenant: tenant) { fixture in
            let token = try #require(try await fixture.signIn().refreshToken)
            for _ in 0..<3 {
                let response = try await fixture.refresh(token)
                #expect(response.status == 200)
                let refreshed = TokenSet(body: try response.jsonBody())
                #expect(refreshed.refreshToken == nil)
                #expect(refreshed.idToken != nil)
            }
        }
    }

    /// Presenting a rotated token is a replay: it fails, and the whole family is revoked, so the
    /// newest token fails too (field bug 1).
    @Test("replay of a rotated token revokes the family", arguments: Deployment.allCases)
    func replay(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try #require(
                TokenSet(body: try await fixture.refresh(first).jsonBody()).refreshToken)
            let secondResponse = try await fixture.refresh(second)
            let third = TokenSet(body: try secondResponse.jsonBody())
            let replay = try await fixture.refresh(first)
            expectError(replay, 400, "invalid_grant")
            #expect(oauthErrorDescription(replay) == "refresh token replay detected")
            let newest = try await fixture.refresh(try #require(third.refreshToken))
            expectError(newest, 400, "invalid_grant")
            // Access tokens of the family are revoked with it.
            #expect(try await fixture.userInfo(bearer: third.accessToken).status == 401)
        }
    }

    /// The `signinsim` profile with `on_reuse: refuse` (as django-oauth-toolkit, django-oidc-provider
    /// and django-allauth behave) refuses the rotated token but leaves the family alone: the
    /// newest token still works. Removing the policy check makes the newest token fail.
    @Test("refuse reuse keeps the family", arguments: Deployment.allCases)
    func refuseKeepsFamily(deployment: Deployment) async throws {
        let tenant = tokenTestTenant(rotation: .signinsim(grace: 0, onReuse: .refuse))
        try await withIssuer(deployment, tenant: tenant) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let secondResponse = try await fixture.refresh(first)
            let second = TokenSet(body: try secondResponse.jsonBody())
            let replay = try await fixture.refresh(first)
            expectError(replay, 400, "invalid_grant")
            #expect(oauthErrorDescription(replay) == "the refresh token was already used")
            #expect(try await fixture.userInfo(bearer: second.accessToken).status == 200)
            let newest = try await fixture.refresh(try #require(second.refreshToken))
            #expect(newest.status == 200)
        }
    }

    /// Eight concurrent refreshes of one token: exactly one succeeds.
    @Test("concurrent double spend", arguments: Deployment.allCases)
    func doubleSpend(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let token = try #require(try await fixture.signIn().refreshToken)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await fixture.refresh(token).status } }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count(where: { $0 == 200 }) == 1, "\(statuses)")
            #expect(statuses.count(where: { $0 == 400 }) == 7, "\(statuses)")
        }
    }

    /// With a reuse grace, a rotated token presented again within it gets a fresh successor and
    /// the earlier successor (whose response was lost) is revoked; past the grace it is a replay.
    @Test("reuse grace on", arguments: Deployment.allCases)
    func graceOn(deployment: Deployment) async throws {
        try await withIssuer(
            deployment, tenant: tokenTestTenant(rotation: .signinsim(grace: 10, onReuse: .revokeFamily))
        ) { fixture in
            let original = try #require(try await fixture.signIn().refreshToken)
            let lost = try #require(
                TokenSet(body: try await fixture.refresh(original).jsonBody()).refreshToken)
            fixture.clock.advance(by: 10)
            let retried = try await fixture.refresh(original)
            #expect(retried.status == 200, "\(retried.bodyText ?? "")")
            let fresh = try #require(TokenSet(body: try retried.jsonBody()).refreshToken)
            #expect(fresh != lost)
            expectError(try await fixture.refresh(lost), 400, "invalid_grant")
            #expect(try await fixture.refresh(fresh).status == 200)
            // The fresh successor was used: presenting the original again is a replay, even in grace.
            expectError(try await fixture.refresh(original), 400, "invalid_grant")
        }
    }

    /// The grace is measured from the first rotation and ends after the configured seconds.
    @Test("reuse grace expires", arguments: Deployment.allCases)
    func graceExpires(deployment: Deployment) async throws {
        try await withIssuer(
            deployment, tenant: tokenTestTenant(rotation: .signinsim(grace: 10, onReuse: .revokeFamily))
        ) { fixture in
            let original = try #require(try await fixture.signIn().refreshToken)
            let successor = try #require(
                TokenSet(body: try await fixture.refresh(original).jsonBody()).refreshToken)
            fixture.clock.advance(by: 11)
            let late = try await fixture.refresh(original)
            expectError(late, 400, "invalid_grant")
            #expect(oauthErrorDescription(late) == "refresh token replay detected")
            expectError(try await fixture.refresh(successor), 400, "invalid_grant")
        }
    }

    /// Without a grace (the default) an immediate retry is already a replay.
    @Test("reuse grace off", arguments: Deployment.allCases)
    func graceOff(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let original = try #require(try await fixture.signIn().refreshToken)
            #expect(try await fixture.refresh(original).status == 200)
            let retry = try await fixture.refresh(original)
            expectError(retry, 400, "invalid_grant")
            #expect(oauthErrorDescription(retry) == "refresh token replay detected")
        }
    }

    /// scope may narrow (the access token gets the narrower scope, the successor keeps the
    /// original) but not widen.
    @Test("scope narrowing and widening", arguments: Deployment.allCases)
    func scopes(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let token = try #require(try await fixture.signIn().refreshToken)
            let widened = try await fixture.refresh(token, scope: "openid read:items")
            expectError(widened, 400, "invalid_scope")

            let narrowed = try await fixture.refresh(token, scope: "openid email")
            #expect(narrowed.status == 200)
            let body = TokenSet(body: try narrowed.jsonBody())
            #expect(body.body["scope"] == nil)
            #expect(try claims(of: body.accessToken)["scope"] == "openid email")
            #expect(try claims(of: try #require(body.idToken))["name"] == nil)
            #expect(try claims(of: try #require(body.idToken))["email"] == "alice@example.com")

            let full = try await fixture.refresh(try #require(body.refreshToken))
            #expect(
                try claims(of: TokenSet(body: try full.jsonBody()).accessToken)["scope"]
                    == "openid profile email offline_access")
        }
    }

    /// Unknown tokens, another client's tokens and expired tokens are invalid_grant.
    @Test("unknown, foreign and expired refresh tokens", arguments: Deployment.allCases)
    func invalidTokens(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            expectError(try await fixture.refresh("no-such-token"), 400, "invalid_grant")
            let token = try #require(try await fixture.signIn().refreshToken)
            let foreign = try await fixture.token(
                ["grant_type": "refresh_token", "refresh_token": token],
                headers: ["Authorization": basicAuthorization("web", "web-secret/+:é")])
            expectError(foreign, 400, "invalid_grant")
            #expect(oauthErrorDescription(foreign).contains("another client"))
            fixture.clock.advance(by: 30 * 86_400)
            // Expired tokens are swept, so the refusal reads like an unknown token's.
            expectError(try await fixture.refresh(token), 400, "invalid_grant")
        }
    }

    /// refresh-token-invalid-sub: the refreshed ID token names someone else.
    @Test("RP fault on the refreshed ID token", arguments: Deployment.allCases)
    func refreshFault(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let token = try #require(try await fixture.signIn().refreshToken)
            try fixture.issuer.inject(FaultInjection(fault: .refreshedIDTokenSubjectMismatch))
            let refreshed = TokenSet(body: try await fixture.refresh(token).jsonBody())
            let sub = try claims(of: try #require(refreshed.idToken))["sub"]
            #expect(sub != nil)
            #expect(sub != .string(aliceID))
        }
    }
}
