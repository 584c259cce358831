import HTTPCore
import JSON
import TestSupport
import Testing

@testable import Issuer

// How refresh tokens are kept (read through @testable): small records keyed by hash, the grant
// in the family, families forgotten with their last token.
@Suite("Refresh token storage")
struct RefreshStorageTests {
    /// The families one /_admin/tokens request mints share one grant object; each token has a
    /// family of its own.
    @Test("admin-minted families share their grant")
    func sharedGrant() async throws {
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            let minted = try await fixture.postJSON(
                "/_admin/tokens",
                ["client_id": .string(appClientID), "email": "alice@example.com", "count": 5])
            let tokens = try minted.jsonBody()["refresh_tokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(tokens.count == 5)
            let (familyIDs, grants) = fixture.issuer.state.withLock { state in
                let records = tokens.compactMap { state.refreshTokens[TokenHash(of: $0)] }
                return (
                    Set(records.map(\.familyID)),
                    records.compactMap { state.families[$0.familyID]?.grant }
                )
            }
            #expect(familyIDs.count == 5)
            #expect(grants.count == 5)
            #expect(Set(grants.map(ObjectIdentifier.init)).count == 1)
            #expect(grants.first?.scopes == ["openid", "profile", "email", "offline_access"])
        }
    }

    /// A family lives as long as any of its tokens: the original token expires first and is
    /// forgotten, its successor still works; once that expires too, nothing is left.
    @Test("sweeping forgets expired tokens, then their family")
    func sweep() async throws {
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            let lifetime = Tenant.default.lifetimes.refreshToken
            let original = try #require(try await fixture.signIn().refreshToken)
            fixture.clock.advance(by: lifetime / 2)
            let successor = try #require(
                TokenSet(body: try await fixture.refresh(original).jsonBody()).refreshToken)
            fixture.clock.advance(by: lifetime / 2)
            fixture.issuer.state.withLock { $0.sweep(now: fixture.clock.now()) }
            let afterFirst = fixture.issuer.state.withLock { state in
                (state.refreshTokens.count, state.families.count, state.refreshTokenExpiries.count)
            }
            #expect(afterFirst == (1, 1, 1))
            let next = try #require(
                TokenSet(body: try await fixture.refresh(successor).jsonBody()).refreshToken)
            fixture.clock.advance(by: lifetime + 1)
            fixture.issuer.state.withLock { $0.sweep(now: fixture.clock.now()) }
            let afterAll = fixture.issuer.state.withLock { state in
                (state.refreshTokens.count, state.families.count, state.refreshTokenExpiries.count)
            }
            #expect(afterAll == (0, 0, 0))
            expectError(try await fixture.refresh(next), 400, "invalid_grant")
        }
    }

    /// The DPoP binding belongs to each token, not to the family: an unbound token refreshed
    /// with a proof gets a bound successor, while the unbound original stays unbound (presenting
    /// it again without a proof is a replay, not a missing proof). Sweeping forgets bindings.
    @Test("DPoP binding per token")
    func bindingPerToken() async throws {
        try await withIssuer(.inProcess, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let original = try #require(try await fixture.signIn().refreshToken)
            let bound = try #require(
                TokenSet(
                    body: try await fixture.refresh(original, headers: ["DPoP": try key.proof(fixture)])
                        .jsonBody()
                ).refreshToken)
            expectError(try await fixture.refresh(bound), 400, "invalid_dpop_proof")
            let replay = try await fixture.refresh(original)
            expectError(replay, 400, "invalid_grant")
            #expect(oauthErrorDescription(replay) == "refresh token replay detected")
            expectError(
                try await fixture.refresh(bound, headers: ["DPoP": try key.proof(fixture)]), 400,
                "invalid_grant")
            #expect(fixture.issuer.state.withLock { $0.refreshTokenBindings.count } == 1)
            fixture.clock.advance(by: Tenant.default.lifetimes.refreshToken + 1)
            fixture.issuer.state.withLock { $0.sweep(now: fixture.clock.now()) }
            #expect(fixture.issuer.state.withLock { $0.refreshTokenBindings.isEmpty })
        }
    }

    /// Token hashes compare by all 32 bytes, and match what SHA-256 gives.
    @Test("token hash")
    func tokenHash() {
        let one = TokenHash(of: "a")
        #expect(one == TokenHash(of: "a"))
        #expect(one != TokenHash(of: "b"))
        #expect(Issuer.hash("a") == "ypeBEsobvcr6wjGzmiPcTaeG7_gUfE5yuYB3ha_uSLs")
        var words = one.words
        let bytes = withUnsafeBytes(of: &words) { Array($0) }
        #expect(bytes.count == 32)
        #expect(bytes.first == 0xCA && bytes.last == 0xBB)
        // What one token and one family cost besides the dictionary keys.
        #expect(MemoryLayout<RefreshTokenRecord>.stride <= 56)
        #expect(MemoryLayout<RefreshFamily>.stride <= 24)
    }
}
