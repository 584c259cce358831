import Testing

@testable import Issuer

/// Token revocation's rules (RFC 7009) as decisions of the issuer's state: no HTTP.
@Suite struct RevocationDecisionTests {
    /// A state with one family of client `app`, whose access tokens are out until 2000.
    struct Fixture {
        var state: IssuerState
        var familyID: RefreshFamily.ID

        init() throws {
            state = IssuerState(
                tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
            familyID = state.newRefreshFamily(
                RefreshGrant(
                    clientID: "app", userID: "auth0|alice", scopes: ["openid"], audience: nil, authTime: 0,
                    sessionID: nil))
            state.storeRefreshToken(
                TokenHash(of: "t0"), familyID: familyID, dpopKeyThumbprint: nil, expiresAt: 1000)
            state.families[familyID]?.noteAccessToken(expiresAt: 2000)
        }

        mutating func revokeRefreshToken(_ token: String = "t0", by clientID: String, now: Int64 = 50)
            -> RevocationDecision
        {
            state.revokeRefreshToken(TokenHash(of: token), token: token, clientID: clientID, now: now)
        }
    }

    /// §2.1: `token_type_hint` decides only which kind is looked for first.
    @Test func theHintedKindIsLookedForFirst() {
        #expect(RevocableToken.lookupOrder(hint: "access_token") == [.accessToken, .refreshToken])
        #expect(RevocableToken.lookupOrder(hint: "refresh_token") == [.refreshToken, .accessToken])
        #expect(RevocableToken.lookupOrder(hint: nil) == [.refreshToken, .accessToken])
        #expect(RevocableToken.lookupOrder(hint: "id_token") == [.refreshToken, .accessToken])
    }

    /// §2.1: revoking a refresh token revokes its grant: every token of the family, and the
    /// access tokens issued in it.
    @Test func aClientsRefreshTokenRevokesItsGrant() throws {
        var fixture = try Fixture()
        #expect(fixture.revokeRefreshToken(by: "app") == .revoked)
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == .revokedByClient)
        #expect(fixture.state.revokedAccessTokenFamilies[fixture.familyID] == 2000)
    }

    /// §2.2: a token the issuer does not know is for the next kind to try, and revokes nothing.
    @Test func anUnknownRefreshTokenIsNotFound() throws {
        var fixture = try Fixture()
        #expect(fixture.revokeRefreshToken("unknown", by: "app") == .notFound)
        #expect(fixture.revokeRefreshToken(by: "app", now: 1000) == .revoked, "stored until swept")
        var expired = try Fixture()
        expired.state.sweep(now: 1000)
        #expect(expired.revokeRefreshToken(by: "app", now: 1000) == .notFound)
    }

    /// §2.1: the client must be the one the token was issued to; another client's token is
    /// left alone (and answered 200 all the same, §2.2).
    @Test func anotherClientsRefreshTokenIsLeftAlone() throws {
        var fixture = try Fixture()
        #expect(fixture.revokeRefreshToken(by: "other") == .leftAlone)
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == nil)
        #expect(fixture.state.revokedAccessTokenFamilies.isEmpty)
    }

    /// An access token: only the client's own, only while it is live; then its `jti` is
    /// refused until it expires.
    @Test func anAccessTokenIsRevokedByItsClientWhileLive() throws {
        var fixture = try Fixture()
        #expect(
            fixture.state.revokeAccessToken(
                id: "j1", issuedTo: "other", expiresAt: 100, clientID: "app", now: 50)
                == .leftAlone)
        #expect(
            fixture.state.revokeAccessToken(id: "j2", issuedTo: nil, expiresAt: 100, clientID: "app", now: 50)
                == .leftAlone)
        #expect(
            fixture.state.revokeAccessToken(
                id: "j3", issuedTo: "app", expiresAt: 50, clientID: "app", now: 50)
                == .leftAlone)
        #expect(fixture.state.revokedAccessTokens.isEmpty)
        #expect(
            fixture.state.revokeAccessToken(
                id: "j4", issuedTo: "app", expiresAt: 100, clientID: "app", now: 50)
                == .revoked)
        #expect(fixture.state.revokedAccessTokens == ["j4": 100])
    }
}
