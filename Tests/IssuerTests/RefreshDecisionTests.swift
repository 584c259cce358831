import Cryptography
import OAuthCore
import Testing

@testable import Issuer

/// The refresh token grant's rules as `IssuerState.refresh` decides them from a request's facts
/// and `now`: no issuer, no HTTP. Each test fails when the rule it names is taken out.
@Suite struct RefreshDecisionTests {
    static let clientID = "app"
    static let scopes = ["openid", "profile", "offline_access"]
    static let fresh = RefreshTokenSeed(bytes: Array(repeating: 7, count: RefreshTokenFormat.seedLength))

    /// A state holding one family of the default tenant's Alice, with a live token `t0`.
    struct Fixture {
        var state: IssuerState
        var familyID: RefreshFamily.ID
        let presented = TokenHash(of: "t0")

        init(userID: String = "auth0|alice") throws {
            state = IssuerState(
                tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
            familyID = state.newRefreshFamily(
                RefreshGrant(
                    clientID: RefreshDecisionTests.clientID, userID: userID,
                    scopes: RefreshDecisionTests.scopes,
                    audience: nil, authTime: 0, sessionID: nil))
            state.storeRefreshToken(presented, familyID: familyID, dpopKeyThumbprint: nil, expiresAt: 1000)
        }

        /// Marks `t0` rotated at `at` into a stored successor `t1`; the successor's hash.
        @discardableResult
        mutating func rotate(at: Int64) -> TokenHash {
            let successor = TokenHash(of: "t1")
            state.storeRefreshToken(successor, familyID: familyID, dpopKeyThumbprint: nil, expiresAt: 1000)
            state.refreshTokens[presented]?.status = .rotated(at: at, successor: successor)
            state.refreshTokens[presented]?.successorCount = 1
            return successor
        }

        mutating func refresh(
            _ profile: RefreshRotation = .default, concurrent: ConcurrentRefresh = .serialized,
            token: String = "t0", scopes: [String]? = nil, successorKey: HMACSHA256Key? = nil,
            clientID: String = RefreshDecisionTests.clientID, now: Int64 = 50
        ) throws(OAuthError) -> RefreshDecision {
            try state.refresh(
                RefreshRequestFacts(
                    presentedToken: token, presentedHash: TokenHash(of: token), requestedScopes: scopes,
                    clientID: clientID, proofThumbprint: nil,
                    rotation: RefreshRotationSettings(profile, concurrentRefresh: concurrent),
                    refreshTokenLifetime: 900, freshSeed: RefreshDecisionTests.fresh,
                    successorKey: successorKey),
                now: now)
        }

        /// The decision's tokens, or the refusal's description.
        mutating func outcome(
            _ profile: RefreshRotation = .default, concurrent: ConcurrentRefresh = .serialized,
            token: String = "t0", scopes: [String]? = nil, successorKey: HMACSHA256Key? = nil,
            clientID: String = RefreshDecisionTests.clientID, now: Int64 = 50
        ) -> Result<RefreshGrantDecision?, OAuthError> {
            do throws(OAuthError) {
                let decision = try refresh(
                    profile, concurrent: concurrent, token: token, scopes: scopes, successorKey: successorKey,
                    clientID: clientID, now: now)
                guard case .tokens(let granted) = decision else { return .success(nil) }
                return .success(granted)
            } catch {
                return .failure(error)
            }
        }
    }

    static func refusal(_ outcome: Result<RefreshGrantDecision?, OAuthError>) -> OAuthError? {
        guard case .failure(let error) = outcome else { return nil }
        return error
    }

    static func granted(_ outcome: Result<RefreshGrantDecision?, OAuthError>) -> RefreshGrantDecision? {
        guard case .success(let granted?) = outcome else { return nil }
        return granted
    }

    @Test func aLiveTokenIsRotatedIntoTheFreshSuccessor() throws {
        var fixture = try Fixture()
        let granted = try #require(Self.granted(fixture.outcome()))
        #expect(granted.exchange == .successor(Self.fresh))
        #expect(granted.user.id == "auth0|alice")
        #expect(granted.grantedScopes == Self.scopes)
        #expect(granted.record.familyID == fixture.familyID)
    }

    @Test func anUnknownTokenIsInvalid() throws {
        var fixture = try Fixture()
        #expect(
            Self.refusal(fixture.outcome(token: "never issued"))?.description
                == "the refresh token is invalid")
    }

    /// The checks of `RefreshTokenRecord.refreshProblem` apply (each is tested on its own in
    /// `RefreshRotationDecisionTests`).
    @Test func theRecordsRefusalsApply() throws {
        var fixture = try Fixture()
        #expect(
            Self.refusal(fixture.outcome(clientID: "other"))?.description
                == "the refresh token was issued to another client")
        #expect(Self.refusal(fixture.outcome(now: 1000))?.description == "the refresh token expired")
        fixture.state.revokeFamily(fixture.familyID, reason: .revokedByClient)
        #expect(Self.refusal(fixture.outcome())?.description == "the refresh token was revoked")
    }

    @Test func withoutRotationThePresentedTokenIsKept() throws {
        var fixture = try Fixture()
        #expect(Self.granted(fixture.outcome(.none))?.exchange == .keep)
    }

    /// django-oauth-toolkit: the successor is derived from the token, so that it can be made
    /// again within the grace.
    @Test func djangoDerivesTheSuccessorAndAnswersItAgainWithinTheGrace() throws {
        let successorKey = HMACSHA256Key(Array(repeating: 3, count: 32))
        let profile = RefreshRotation.djangoOAuthToolkit(gracePeriod: 60, reuseProtection: false)
        var fixture = try Fixture()
        let derived = try #require(RefreshTokenSeed.derived(from: "t0", index: 0, key: successorKey))
        #expect(derived != Self.fresh)
        #expect(
            Self.granted(fixture.outcome(profile, successorKey: successorKey))?.exchange
                == .successor(derived))

        // The successor made from that seed, stored as the issuer stores it.
        let key = HMACSHA256Key(Array(repeating: 5, count: 32))
        fixture.state.refreshTokenKey = key
        let successor = RefreshTokenFormat(familyID: fixture.familyID, expiresAt: 1000, bound: false)
            .token(seed: derived.bytes, key: key)
        let successorHash = TokenHash(of: successor)
        fixture.state.storeRefreshToken(
            successorHash, familyID: fixture.familyID, dpopKeyThumbprint: nil, expiresAt: 1000)
        fixture.state.refreshTokens[fixture.presented]?.status = .rotated(at: 40, successor: successorHash)
        fixture.state.refreshTokens[fixture.presented]?.successorCount = 1

        let again = try #require(Self.granted(fixture.outcome(profile, successorKey: successorKey, now: 99)))
        #expect(again.exchange == .replay(successor))
        // Once the successor is used, a fresh one derived with the next index.
        fixture.state.refreshTokens[successorHash]?.status = .rotated(at: 45, successor: TokenHash(of: "t2"))
        let next = try #require(RefreshTokenSeed.derived(from: "t0", index: 1, key: successorKey))
        #expect(
            Self.granted(fixture.outcome(profile, successorKey: successorKey, now: 99))?.exchange
                == .again(next, rotatedAt: 40, revoking: nil))
        // After the grace: refused, and without reuse protection the family goes on.
        #expect(
            Self.refusal(fixture.outcome(profile, successorKey: successorKey, now: 100))?.description
                == "the refresh token was already used")
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == nil)
    }

    /// `ConcurrentRefresh.serverError`: a token rotated in this second gets the error page and
    /// nothing changes; the profile's rule is not applied.
    @Test func aConcurrentRotationIsAServerErrorWhereTheProfileSaysSo() throws {
        var fixture = try Fixture()
        fixture.rotate(at: 50)
        guard case .success(nil) = fixture.outcome(concurrent: .serverError, now: 50) else {
            Issue.record("expected the concurrent failure")
            return
        }
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == nil)
        // A second later it is the profile's reuse rule.
        #expect(Self.refusal(fixture.outcome(concurrent: .serverError, now: 51)) != nil)
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == .replayDetected)
    }

    /// RFC 9700 §4.14.2: reuse detection revokes the family and the access tokens issued in it.
    @Test func reuseRevokesTheGrantAndItsAccessTokens() throws {
        var fixture = try Fixture()
        fixture.state.families[fixture.familyID]?.noteAccessToken(expiresAt: 2000)
        fixture.rotate(at: 40)
        #expect(Self.refusal(fixture.outcome())?.description == "refresh token replay detected")
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == .replayDetected)
        #expect(fixture.state.revokedAccessTokenFamilies[fixture.familyID] == 2000)
    }

    /// Auth0 revokes the refresh tokens, not the access tokens.
    @Test func auth0ReuseRevokesOnlyTheRefreshTokens() throws {
        var fixture = try Fixture()
        fixture.state.families[fixture.familyID]?.noteAccessToken(expiresAt: 2000)
        fixture.rotate(at: 40)
        #expect(Self.refusal(fixture.outcome(.auth0(reuseInterval: 5))) != nil)
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == .replayDetected)
        #expect(fixture.state.revokedAccessTokenFamilies[fixture.familyID] == nil)
    }

    /// SignInSim's grace: the successor's answer counts as lost, and it is revoked.
    @Test func withinSignInSimsGraceTheUnusedSuccessorIsReplaced() throws {
        var fixture = try Fixture()
        let successor = fixture.rotate(at: 45)
        let granted = try #require(
            Self.granted(fixture.outcome(.signinsim(grace: 10, onReuse: .revokeFamily))))
        #expect(granted.exchange == .again(Self.fresh, rotatedAt: 45, revoking: successor))
    }

    /// Keycloak: the token presented last may be used `maxReuse + 1` times; an older one is
    /// stale; a refusal ends the grant.
    @Test func keycloakCountsUsesAndRefusesStaleTokens() throws {
        var fixture = try Fixture()
        let profile = RefreshRotation.keycloak(maxReuse: 0)
        #expect(Self.granted(fixture.outcome(profile, now: 50))?.exchange == .successor(Self.fresh))
        #expect(fixture.state.keycloakReuse[fixture.familyID]?.useCount == 1)
        fixture.rotate(at: 50)
        #expect(
            Self.refusal(fixture.outcome(profile, now: 51))?.description
                == "Maximum allowed refresh token reuse exceeded")
        #expect(fixture.state.families[fixture.familyID]?.revokedReason == .replayDetected)
        #expect(fixture.state.keycloakReuse[fixture.familyID] == nil)

        var stale = try Fixture()
        // `t0` was issued at 100 (1000 - 900); a newer token was refreshed at 101.
        stale.state.keycloakReuse[stale.familyID] = KeycloakReuseState(
            current: TokenHash(of: "newer"), useCount: 1, lastRefresh: 101)
        #expect(Self.refusal(stale.outcome(profile, now: 110))?.description == "Stale token")
        stale.state.families[stale.familyID]?.revokedReason = nil
        stale.state.keycloakReuse[stale.familyID] = KeycloakReuseState(
            current: TokenHash(of: "newer"), useCount: 1, lastRefresh: 100)
        #expect(Self.granted(stale.outcome(profile, now: 110))?.exchange == .successor(Self.fresh))
    }

    /// RFC 6749 §6: `scope` may narrow the grant for this access token, never widen it.
    @Test func aRefreshMayNarrowTheScopeOnly() throws {
        var fixture = try Fixture()
        #expect(
            Self.granted(fixture.outcome(scopes: ["offline_access", "openid"]))?.grantedScopes == [
                "openid", "offline_access",
            ])
        let widened = Self.refusal(fixture.outcome(scopes: ["openid", "email"]))
        #expect(widened?.code == OAuthErrorCode.invalidScope)
        #expect(widened?.description.contains("\"email\"") == true)
    }

    @Test func theUserMustStillExist() throws {
        var fixture = try Fixture(userID: "auth0|gone")
        #expect(
            Self.refusal(fixture.outcome())?.description == "the user of the refresh token no longer exists")
    }
}
