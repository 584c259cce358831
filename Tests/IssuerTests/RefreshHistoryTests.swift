import Cryptography
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

@testable import Issuer

// A family keeps its live tokens and the records of its last `RefreshFamily.retiredLimit`
// retired ones; older ones are forgotten, and recognised by what the token says.
@Suite("Refresh token history")
struct RefreshHistoryTests {
    /// However often a family refreshes, it holds at most its live token and the last
    /// `retiredLimit` retired ones, the oldest forgotten first; and the first token, long
    /// forgotten, is still reuse: it revokes the family.
    @Test("a family's memory is bounded, reuse of a forgotten token still detected")
    func boundedFamily() async throws {
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            let first = try #require(try await fixture.signIn().refreshToken)
            var tokens = [first]
            for _ in 0..<40 {
                tokens.append(
                    try #require(try await fixture.refreshed(tokens[tokens.count - 1]).refreshToken))
                let stored = fixture.issuer.state.withLock { $0.refreshTokens.count }
                #expect(stored <= 1 + RefreshFamily.retiredLimit)
            }
            let (stored, retired, familyID) = fixture.issuer.state.withLock { state in
                let familyID = state.refreshTokens[TokenHash(of: tokens[40])]?.familyID ?? 0
                return (state.refreshTokens.count, state.retiredRefreshTokens[familyID] ?? [], familyID)
            }
            #expect(stored == 1 + RefreshFamily.retiredLimit)
            #expect(retired == tokens[(40 - RefreshFamily.retiredLimit)..<40].map { TokenHash(of: $0) })
            #expect(fixture.issuer.state.withLock { $0.refreshTokens[TokenHash(of: first)] } == nil)
            #expect(fixture.issuer.refreshTokenStatus(first) == .rotated)
            #expect(fixture.issuer.refreshTokenStatus(tokens[40]) == .active)

            let replay = try await fixture.refresh(first)
            expectError(replay, 400, "invalid_grant")
            #expect(oauthErrorDescription(replay) == "refresh token replay detected")
            #expect(fixture.issuer.state.withLock { $0.families[familyID]?.revokedReason } == .replayDetected)
            expectError(try await fixture.refresh(tokens[40]), 400, "invalid_grant")
        }
    }

    /// The access tokens of a family refreshed many times are each revoked with the family
    /// (RFC 7009 §2.1), though the family keeps no record per access token: their `jti` names
    /// the family. Another family's access token is untouched.
    @Test("every access token of a long family is revoked with it, none stored")
    func accessTokensRevokedWithFamily() async throws {
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            let other = try await fixture.signIn()
            var sets = [try await fixture.signIn()]
            for _ in 0..<40 {
                let previous = try #require(sets[sets.count - 1].refreshToken)
                sets.append(TokenSet(body: try await fixture.refresh(previous).jsonBody()))
            }
            let firstJTI = try #require(try claims(of: sets[0].accessToken)["jti"]?.stringValue)
            let familyID = try #require(AccessTokenID(jti: firstJTI)?.family)
            for set in sets {
                let jti = try #require(try claims(of: set.accessToken)["jti"]?.stringValue)
                #expect(AccessTokenID(jti: jti)?.family == familyID)
            }
            #expect(try await fixture.userInfo(bearer: sets[0].accessToken).status == 200)
            let last = try #require(sets[sets.count - 1].refreshToken)
            #expect(try await fixture.revoke(last, hint: "refresh_token").status == 200)
            for set in sets {
                expectError(try await fixture.userInfo(bearer: set.accessToken), 401, "invalid_token")
            }
            #expect(try await fixture.userInfo(bearer: other.accessToken).status == 200)
            #expect(fixture.issuer.state.withLock { $0.revokedAccessTokens.isEmpty })
        }
    }

    /// A forgotten token under a profile that refuses without revoking: refused, the family
    /// goes on (django-oauth-toolkit without reuse protection).
    @Test("a forgotten token under a refusing profile leaves the family")
    func forgottenRefused() async throws {
        let rotation = RefreshRotation.djangoOAuthToolkit(gracePeriod: 0, reuseProtection: false)
        try await withIssuer(.inProcess, tenant: tokenTestTenant(rotation: rotation)) { fixture in
            var tokens = [try #require(try await fixture.signIn().refreshToken)]
            for _ in 0..<(RefreshFamily.retiredLimit + 3) {
                fixture.clock.advance(by: 1)
                tokens.append(
                    try #require(try await fixture.refreshed(tokens[tokens.count - 1]).refreshToken))
            }
            let old = try await fixture.refresh(tokens[0])
            expectError(old, 400, "invalid_grant")
            #expect(oauthErrorDescription(old) == "the refresh token was already used")
            #expect(try await fixture.refresh(tokens[tokens.count - 1]).status == 200)
        }
    }

    /// A forgotten token bound to a DPoP key still needs a proof: without one it is
    /// `invalid_dpop_proof`, with another key `invalid_grant`, and the family is left alone.
    @Test("a forgotten bound token keeps its binding")
    func forgottenBound() async throws {
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let other = try DPoPKey()
            var tokens = [try #require(try await fixture.signIn(dpop: key).refreshToken)]
            for _ in 0..<(RefreshFamily.retiredLimit + 2) {
                let next = try await fixture.refresh(
                    tokens[tokens.count - 1], headers: ["DPoP": try key.proof(fixture)])
                try #require(next.status == 200)
                tokens.append(try #require(TokenSet(body: try next.jsonBody()).refreshToken))
            }
            #expect(fixture.issuer.state.withLock { $0.refreshTokens[TokenHash(of: tokens[0])] } == nil)
            expectError(try await fixture.refresh(tokens[0]), 400, "invalid_dpop_proof")
            expectError(
                try await fixture.refresh(tokens[0], headers: ["DPoP": try other.proof(fixture)]), 400,
                "invalid_grant")
            let newest = try await fixture.refresh(
                tokens[tokens.count - 1], headers: ["DPoP": try key.proof(fixture)])
            #expect(newest.status == 200)
        }
    }

    /// A token from before a reset names no family of the new state; nor does an expired
    /// forgotten one, or a forged one.
    @Test("reset, expiry and forgery")
    func unknownTokens() async throws {
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            var tokens = [try #require(try await fixture.signIn().refreshToken)]
            for _ in 0..<(RefreshFamily.retiredLimit + 2) {
                tokens.append(
                    try #require(try await fixture.refreshed(tokens[tokens.count - 1]).refreshToken))
            }
            // Forged: the family id and expiry changed, the tag kept.
            var bytes = try Base64URL.decode(tokens[0])
            bytes[0] ^= 1
            let forged = try await fixture.refresh(Base64URL.encode(bytes))
            #expect(oauthErrorDescription(forged) == "the refresh token is invalid")

            _ = try await fixture.postJSON("/_admin/reset", [:])
            _ = try #require(try await fixture.signIn().refreshToken)
            let beforeReset = try await fixture.refresh(tokens[0])
            #expect(oauthErrorDescription(beforeReset) == "the refresh token is invalid")
        }
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            let lifetime = Tenant.default.lifetimes.refreshToken
            var tokens = [try #require(try await fixture.signIn().refreshToken)]
            fixture.clock.advance(by: lifetime / 2)
            for _ in 0..<(RefreshFamily.retiredLimit + 2) {
                tokens.append(
                    try #require(try await fixture.refreshed(tokens[tokens.count - 1]).refreshToken))
            }
            // The first token has expired; the family lives on in its successors.
            fixture.clock.advance(by: lifetime / 2 + 1)
            let expired = try await fixture.refresh(tokens[0])
            #expect(oauthErrorDescription(expired) == "the refresh token is invalid")
            #expect(try await fixture.refresh(tokens[tokens.count - 1]).status == 200)
        }
    }

    /// Forgotten tokens' expiry entries are cleared in bulk: the queue stays proportional to
    /// the tokens stored, not to the refreshes made.
    @Test("the expiry queue does not keep forgotten tokens")
    func expiryQueue() throws {
        let keys = try SigningKeyRing(algorithm: .es256, source: .generated)
        var state = IssuerState(tenant: .default, keys: keys)
        let grant = RefreshGrant(
            clientID: "app", userID: "u", scopes: [], audience: nil, authTime: 0, sessionID: nil)
        let familyID = state.newRefreshFamily(grant)
        var previous = TokenHash(of: "0")
        state.storeRefreshToken(previous, familyID: familyID, dpopKeyThumbprint: nil, expiresAt: 1000)
        for index in 1...5000 {
            let next = TokenHash(of: String(index))
            state.storeRefreshToken(
                next, familyID: familyID, dpopKeyThumbprint: nil, expiresAt: 1000 + Int64(index))
            state.refreshTokens[previous]?.status = .rotated(at: 0, successor: next)
            state.retireRefreshToken(previous, familyID: familyID)
            previous = next
            #expect(state.refreshTokens.count <= 1 + RefreshFamily.retiredLimit)
            #expect(state.refreshTokenExpiries.count <= 2 * 1024 + 1 + RefreshFamily.retiredLimit)
        }
        #expect(state.families[familyID]?.tokenCount == Int32(1 + RefreshFamily.retiredLimit))
        state.sweep(now: 10_000)
        #expect(state.refreshTokens.count == 0 && state.families.count == 0)
        #expect(state.refreshTokenExpiries.count == 0)
    }
}
