import HTTPCore
import Issuer
import JSON
import TestSupport
import Testing

/// The refresh rotation profiles (`RefreshRotation`): each rule of each issuer, in process and
/// over loopback. The `signinsim` profile's rules are in `TokenRefreshTests`.
@Suite("Refresh rotation profiles")
struct RefreshRotationTests {
    // MARK: Auth0

    /// Within the reuse interval the previous token is exchanged again for a new token, and
    /// nothing is revoked: the first successor still works.
    @Test("auth0: the previous token within the reuse interval", arguments: Deployment.allCases)
    func auth0WithinInterval(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .auth0(reuseInterval: 10))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            fixture.clock.advance(by: 9)
            let again = try await fixture.refreshed(first)
            #expect(again.refreshToken != second.refreshToken)
            #expect(fixture.issuer.refreshTokenStatus(try #require(second.refreshToken)) == .active)
            #expect(try await fixture.refresh(try #require(second.refreshToken)).status == 200)
            #expect(try await fixture.refresh(try #require(again.refreshToken)).status == 200)
        }
    }

    /// After the interval, reuse revokes the refresh token family; the access tokens already
    /// issued stay valid.
    @Test("auth0: reuse after the interval revokes the refresh tokens only", arguments: Deployment.allCases)
    func auth0AfterInterval(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .auth0(reuseInterval: 10))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            fixture.clock.advance(by: 10)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
            expectError(try await fixture.refresh(try #require(second.refreshToken)), 400, "invalid_grant")
            #expect(try await fixture.userInfo(bearer: second.accessToken).status == 200)
        }
    }

    /// Only the previous token: the second-to-last one is reuse even within the interval.
    @Test("auth0: the second-to-last token is reuse", arguments: Deployment.allCases)
    func auth0SecondToLast(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .auth0(reuseInterval: 10))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try #require(try await fixture.refreshed(first).refreshToken)
            let third = try #require(try await fixture.refreshed(second).refreshToken)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
            expectError(try await fixture.refresh(third), 400, "invalid_grant")
        }
    }

    // MARK: Okta

    /// Within the grace period a rotated token is exchanged like a live one, and the tokens
    /// issued since stay valid.
    @Test("okta: a rotated token within the grace period", arguments: Deployment.allCases)
    func oktaWithinGrace(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .okta(gracePeriod: 30))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            fixture.clock.advance(by: 29)
            let again = try await fixture.refreshed(first)
            #expect(again.refreshToken != second.refreshToken)
            #expect(try await fixture.refresh(try #require(second.refreshToken)).status == 200)
        }
    }

    /// Okta documents only a time limit: a token two generations back is still accepted within
    /// its own grace period (where Auth0 detects reuse).
    @Test("okta: an older generation within its grace period", arguments: Deployment.allCases)
    func oktaOlderGeneration(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .okta(gracePeriod: 30))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try #require(try await fixture.refreshed(first).refreshToken)
            let third = try #require(try await fixture.refreshed(second).refreshToken)
            #expect(try await fixture.refresh(first).status == 200)
            #expect(try await fixture.refresh(third).status == 200)
        }
    }

    /// After the grace period, reuse revokes the family and the access tokens issued in it.
    @Test(
        "okta: reuse after the grace period revokes tokens and access tokens", arguments: Deployment.allCases)
    func oktaAfterGrace(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .okta(gracePeriod: 30))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            fixture.clock.advance(by: 30)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
            expectError(try await fixture.refresh(try #require(second.refreshToken)), 400, "invalid_grant")
            #expect(try await fixture.userInfo(bearer: second.accessToken).status == 401)
        }
    }

    // MARK: Keycloak

    /// With a maximum reuse of 0 a token is exchanged once; the second use is refused and ends
    /// the client session: the newer token and its access token too.
    @Test("keycloak: max reuse 0", arguments: Deployment.allCases)
    func keycloakNoReuse(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .keycloak(maxReuse: 0))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            let reuse = try await fixture.refresh(first)
            expectError(reuse, 400, "invalid_grant")
            #expect(oauthErrorDescription(reuse) == "Maximum allowed refresh token reuse exceeded")
            expectError(try await fixture.refresh(try #require(second.refreshToken)), 400, "invalid_grant")
            #expect(try await fixture.userInfo(bearer: second.accessToken).status == 401)
        }
    }

    /// A maximum reuse count of N lets the token presented last be exchanged N + 1 times.
    @Test("keycloak: max reuse count", arguments: Deployment.allCases)
    func keycloakReuseCount(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .keycloak(maxReuse: 2))) {
            fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            for _ in 0..<3 { _ = try await fixture.refreshed(first) }
            let fourth = try await fixture.refresh(first)
            expectError(fourth, 400, "invalid_grant")
            #expect(oauthErrorDescription(fourth) == "Maximum allowed refresh token reuse exceeded")
        }
    }

    /// A token issued before the newest refresh token (in an earlier second) is stale once a
    /// newer one was presented; in the same second it is not, as Keycloak compares whole
    /// seconds.
    @Test("keycloak: stale tokens, by the second", arguments: Deployment.allCases)
    func keycloakStale(deployment: Deployment) async throws {
        let tenant = tokenTestTenant(rotation: .keycloak(maxReuse: 0))
        try await withIssuer(deployment, tenant: tenant) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try #require(try await fixture.refreshed(first).refreshToken)
            _ = try await fixture.refreshed(second)
            // Issued in the second of the newest token: taken as the one presented last.
            #expect(try await fixture.refresh(first).status == 200)
        }
        try await withIssuer(deployment, tenant: tenant) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            fixture.clock.advance(by: 1)
            let second = try #require(try await fixture.refreshed(first).refreshToken)
            fixture.clock.advance(by: 1)
            let third = try #require(try await fixture.refreshed(second).refreshToken)
            let stale = try await fixture.refresh(first)
            expectError(stale, 400, "invalid_grant")
            #expect(oauthErrorDescription(stale) == "Stale token")
            expectError(try await fixture.refresh(third), 400, "invalid_grant")
        }
    }

    // MARK: django-oauth-toolkit

    /// Without a grace period a rotated token is refused and the newer token keeps working
    /// (reuse protection off, the default).
    @Test("django-oauth-toolkit: refused, family kept", arguments: Deployment.allCases)
    func dotRefused(deployment: Deployment) async throws {
        let rotation = RefreshRotation.djangoOAuthToolkit(gracePeriod: 0, reuseProtection: false)
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: rotation)) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
            #expect(try await fixture.userInfo(bearer: second.accessToken).status == 200)
            #expect(try await fixture.refresh(try #require(second.refreshToken)).status == 200)
        }
    }

    /// `REFRESH_TOKEN_REUSE_PROTECTION` revokes the whole family on reuse.
    @Test("django-oauth-toolkit: reuse protection revokes the family", arguments: Deployment.allCases)
    func dotReuseProtection(deployment: Deployment) async throws {
        let rotation = RefreshRotation.djangoOAuthToolkit(gracePeriod: 0, reuseProtection: true)
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: rotation)) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
            expectError(try await fixture.refresh(try #require(second.refreshToken)), 400, "invalid_grant")
        }
    }

    /// Within the grace period the token whose successor is unused gets that same successor
    /// again; after the grace it is refused.
    @Test("django-oauth-toolkit: the same successor within the grace", arguments: Deployment.allCases)
    func dotSameSuccessor(deployment: Deployment) async throws {
        let rotation = RefreshRotation.djangoOAuthToolkit(gracePeriod: 10, reuseProtection: false)
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: rotation)) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            fixture.clock.advance(by: 9)
            let again = try await fixture.refreshed(first)
            #expect(again.refreshToken == second.refreshToken)
            fixture.clock.advance(by: 1)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
            #expect(try await fixture.refresh(try #require(second.refreshToken)).status == 200)
        }
    }

    /// Within the grace period any older generation is accepted (django-oauth-toolkit#1617),
    /// even with reuse protection on: it gets a fresh successor, and the newest token stays.
    @Test("django-oauth-toolkit: an older generation within the grace", arguments: Deployment.allCases)
    func dotOlderGeneration(deployment: Deployment) async throws {
        let rotation = RefreshRotation.djangoOAuthToolkit(gracePeriod: 10, reuseProtection: true)
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: rotation)) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try #require(try await fixture.refreshed(first).refreshToken)
            let third = try #require(try await fixture.refreshed(second).refreshToken)
            let old = try await fixture.refreshed(first)
            #expect(old.refreshToken != second)
            #expect(old.refreshToken != third)
            // The fork's successor is answered again while unused.
            #expect(try await fixture.refreshed(first).refreshToken == old.refreshToken)
            #expect(try await fixture.refresh(third).status == 200)
        }
    }

    // MARK: No rotation

    /// A tenant without rotation answers no refresh token and keeps the presented one.
    @Test("none: no successor, the token stays", arguments: Deployment.allCases)
    func noRotation(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: .none)) { fixture in
            let token = try #require(try await fixture.signIn().refreshToken)
            for _ in 0..<3 { #expect(try await fixture.refreshed(token).refreshToken == nil) }
            #expect(fixture.issuer.refreshTokenStatus(token) == .active)
        }
    }

    // MARK: Concurrent rotation

    /// With `concurrent_refresh: server-error`, a token rotated in this second of issuer time
    /// gets Django's HTML 500 page and nothing changes; a second later the profile's rule
    /// answers. Serialized (the default), the rule answers at once.
    @Test("concurrent rotation answered with a 500 HTML page", arguments: Deployment.allCases)
    func concurrentServerError(deployment: Deployment) async throws {
        let rotation = RefreshRotation.djangoOAuthToolkit(gracePeriod: 0, reuseProtection: false)
        let tenant = tokenTestTenant(rotation: rotation, concurrentRefresh: .serverError)
        try await withIssuer(deployment, tenant: tenant) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            let second = try await fixture.refreshed(first)
            let concurrent = try await fixture.refresh(first)
            #expect(concurrent.status == 500)
            #expect(concurrent.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(concurrent.bodyText?.contains("<title>Server Error (500)</title>") == true)
            #expect(fixture.issuer.refreshTokenStatus(try #require(second.refreshToken)) == .active)
            fixture.clock.advance(by: 1)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
            #expect(try await fixture.refresh(try #require(second.refreshToken)).status == 200)
        }
        try await withIssuer(deployment, tenant: tokenTestTenant(rotation: rotation)) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            _ = try await fixture.refreshed(first)
            expectError(try await fixture.refresh(first), 400, "invalid_grant")
        }
    }

    /// Eight refreshes of one token at once: one rotates it, the others get the 500 page.
    @Test("concurrent refreshes: one 200, the rest 500", arguments: Deployment.allCases)
    func concurrentRace(deployment: Deployment) async throws {
        let tenant = tokenTestTenant(rotation: .default, concurrentRefresh: .serverError)
        try await withIssuer(deployment, tenant: tenant) { fixture in
            let token = try #require(try await fixture.signIn().refreshToken)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await fixture.refresh(token).status } }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count(where: { $0 == 200 }) == 1, "\(statuses)")
            #expect(statuses.count(where: { $0 == 500 }) == 7, "\(statuses)")
        }
    }
}

extension IssuerFixture {
    /// A refresh that must succeed, and its tokens.
    func refreshed(_ refreshToken: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> TokenSet
    {
        let response = try await refresh(refreshToken)
        try #require(response.status == 200, "\(response.bodyText ?? "")", sourceLocation: sourceLocation)
        return TokenSet(body: try response.jsonBody())
    }
}
