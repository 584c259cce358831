import OAuthCore
import Testing

@testable import Issuer

/// The authorization code grant's rules as `IssuerState.redeemAuthorizationCode` decides them:
/// a code is used once, a refused one is spent, a replayed one revokes what it issued
/// (RFC 6749 §4.1.2). No issuer, no HTTP; each refusal of an unused code is
/// `AuthorizationCodeRedemptionTests`.
@Suite struct CodeRedemptionDecisionTests {
    /// A state holding Alice's code `c` for client `app`, valid until 100.
    static func state(scopes: [String] = ["openid", "offline_access"]) throws -> IssuerState {
        var state = IssuerState(
            tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
        state.codes["c"] = AuthorizationCodeRecord(
            clientID: "app", redirectURI: "app://cb", userID: "auth0|alice", scopes: scopes, audience: nil,
            nonce: nil, codeChallenge: nil, authTime: 0, sessionID: nil, dpopKeyThumbprint: nil,
            expiresAt: 100,
            redeemed: nil)
        return state
    }

    static func facts(
        code: String = "c", clientID: String = "app", redirectURI: String = "app://cb",
        mayRefresh: Bool = true
    ) -> CodeRedemptionFacts {
        CodeRedemptionFacts(
            codeHash: code, clientID: clientID, redirectURI: redirectURI, verifier: nil, proofThumbprint: nil,
            clientMayRefresh: mayRefresh)
    }

    static func refusal(_ state: inout IssuerState, _ facts: CodeRedemptionFacts, now: Int64 = 50) -> String?
    {
        do {
            _ = try state.redeemAuthorizationCode(facts, now: now)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aValidCodeRedeemsAndStaysUntilItsTokensAreNoted() throws {
        var state = try Self.state()
        let redemption = try state.redeemAuthorizationCode(Self.facts(), now: 50)
        #expect(redemption.user.id == "auth0|alice")
        #expect(redemption.record.scopes == ["openid", "offline_access"])
        #expect(state.codes["c"] != nil)
    }

    @Test func anUnknownCodeIsInvalid() throws {
        var state = try Self.state()
        #expect(
            Self.refusal(&state, Self.facts(code: "other"))
                == "the authorization code is invalid, expired or already used")
    }

    /// A refused presentation spends the code, so that a stolen one cannot be tried again.
    @Test func aRefusedCodeIsSpent() throws {
        var state = try Self.state()
        #expect(
            Self.refusal(&state, Self.facts(clientID: "other"))
                == "the authorization code was issued to another client")
        #expect(state.codes["c"] == nil)
        #expect(
            Self.refusal(&state, Self.facts()) == "the authorization code is invalid, expired or already used"
        )
    }

    /// RFC 6749 §4.1.2: a code presented again revokes the refresh family and the access token
    /// its first redemption issued (the access token only while it is live).
    @Test func aReplayedCodeRevokesWhatItIssued() throws {
        var state = try Self.state()
        let familyID = state.newRefreshFamily(
            RefreshGrant(
                clientID: "app", userID: "auth0|alice", scopes: [], audience: nil, authTime: 0, sessionID: nil
            ))
        state.families[familyID]?.noteAccessToken(expiresAt: 500)
        let accessTokenID = AccessTokenID(bytes: Array(repeating: 1, count: 16))
        state.codes["c"]?.redeemed = RedeemedTokens(
            refreshFamilyID: familyID, accessTokenID: accessTokenID, accessTokenExpiresAt: 500)
        #expect(Self.refusal(&state, Self.facts())?.contains("already used") == true)
        #expect(state.families[familyID]?.revokedReason == .codeReused)
        #expect(state.revokedAccessTokenFamilies[familyID] == 500)
        #expect(state.revokedAccessTokens[accessTokenID.string] == 500)

        var expired = try Self.state()
        expired.codes["c"]?.redeemed = RedeemedTokens(
            refreshFamilyID: nil, accessTokenID: accessTokenID, accessTokenExpiresAt: 50)
        #expect(Self.refusal(&expired, Self.facts())?.contains("already used") == true)
        #expect(expired.revokedAccessTokens.isEmpty)
    }

    /// A refresh token only with `offline_access` and to a client allowed the refresh grant.
    @Test func aRefreshTokenNeedsOfflineAccessAndTheGrant() throws {
        var state = try Self.state()
        #expect(try state.redeemAuthorizationCode(Self.facts(), now: 50).issuesRefreshToken)
        #expect(try !state.redeemAuthorizationCode(Self.facts(mayRefresh: false), now: 50).issuesRefreshToken)
        var withoutOffline = try Self.state(scopes: ["openid"])
        #expect(try !withoutOffline.redeemAuthorizationCode(Self.facts(), now: 50).issuesRefreshToken)
    }
}
