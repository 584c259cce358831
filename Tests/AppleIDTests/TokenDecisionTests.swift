import Testing

@testable import AppleID

/// The rules of Apple's `/auth/token` and `/auth/revoke` as `AppleProviderState` decides them
/// from the state, the request's facts and `now`: no HTTP, no client secret. Each test fails
/// when the rule it names is taken out.
@Suite struct TokenDecisionTests {
    static let lifetime: Int64 = 3600

    /// A state where Alice authorized `appA` at 1000: its code is stored under `code`
    /// (valid until 1300), and a refresh token and an access token of it under `refresh` and
    /// `access`.
    struct Fixture {
        var state = AppleProviderState(keys: AppleKeyRing(testKeySet))
        let decision: AppleAuthorizationDecision

        init(nonce: String? = "n") throws {
            let request = AppleAuthorizationRequest(
                account: AppleIDAccount(email: "alice@example.com"), bundleID: appA, teamID: teamA,
                nonce: nonce)
            decision = try state.decideAuthorization(
                request, account: try request.admittedAccount(),
                settings: AppleAuthorizationSettings(defaultTeamID: teamA, codeLifetime: 300), now: 1000)
            state.apply(decision, codeKey: "code")
            state.refreshTokens["refresh"] = RefreshTokenRecord(grant: decision.grant)
            state.accessTokens["access"] = AccessTokenRecord(grant: decision.grant, expiresAt: 4600)
        }

        func redeem(_ code: String = "code", clientID: String = appA, now: Int64 = 1100)
            throws(AppleEndpointError)
            -> AppleTokenDecision
        {
            try state.decideCodeRedemption(
                codeKey: code, clientID: clientID, accessTokenLifetime: TokenDecisionTests.lifetime, now: now)
        }

        func refresh(_ token: String = "refresh", clientID: String = appA, now: Int64 = 1100)
            throws(AppleEndpointError) -> AppleTokenDecision
        {
            try state.decideRefresh(
                tokenKey: token, clientID: clientID, accessTokenLifetime: TokenDecisionTests.lifetime,
                now: now)
        }

        func revoke(_ token: String, hint: String? = nil, clientID: String = appA) throws(AppleEndpointError)
            -> AppleRevocationDecision
        {
            try state.decideRevocation(tokenKey: token, hint: hint, clientID: clientID)
        }
    }

    /// The refusal `body` throws, or nil when it decides.
    static func refusal<T>(_ body: () throws(AppleEndpointError) -> T) -> AppleEndpointError? {
        do throws(AppleEndpointError) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    static func grantType(_ form: [String: String]) -> Result<AppleGrantType, AppleEndpointError> {
        do throws(AppleEndpointError) {
            return .success(try AppleGrantType(form: form))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - grant_type

    @Test func theGrantTypeIsRequiredAndOneOfTwo() throws {
        #expect(try Self.grantType(["grant_type": "authorization_code"]).get() == .authorizationCode)
        #expect(try Self.grantType(["grant_type": "refresh_token"]).get() == .refreshToken)
        guard case .failure(let missing) = Self.grantType(["grant_type": ""]),
            case .failure(let other) = Self.grantType(["grant_type": "password"])
        else {
            Issue.record("expected refusals")
            return
        }
        #expect(missing.error == "invalid_request")
        #expect(missing.reason == "grant_type is required")
        #expect(other.error == "unsupported_grant_type")
    }

    // MARK: - Client authentication

    @Test func theClientMustBeAKnownAppOfTheSecretsTeam() throws {
        let fixture = try Fixture()
        #expect(
            Self.refusal { () throws(AppleEndpointError) in
                try fixture.state.checkClient(appA, authenticatedAs: teamA)
            } == nil)
        let unknown = Self.refusal { () throws(AppleEndpointError) in
            try fixture.state.checkClient(appB, authenticatedAs: teamA)
        }
        #expect(unknown?.error == "invalid_client")
        #expect(unknown?.reason == "client_id \"\(appB)\" is not a known app")
        let otherTeam = Self.refusal { () throws(AppleEndpointError) in
            try fixture.state.checkClient(appA, authenticatedAs: teamB)
        }
        #expect(otherTeam?.error == "invalid_client")
        #expect(otherTeam?.reason == "client_id \(appA) belongs to team \(teamA), not to \(teamB)")
    }

    // MARK: - Code redemption

    @Test func anUnknownCodeHasExpiredOrBeenRevoked() throws {
        let fixture = try Fixture()
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.redeem("other") }
        #expect(refusal?.error == "invalid_grant")
        #expect(refusal?.errorDescription == "The code has expired or has been revoked.")
        #expect(refusal?.reason == "unknown or expired code")
    }

    @Test func theCodeBelongsToTheClientItWasIssuedTo() throws {
        let fixture = try Fixture()
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.redeem(clientID: appB) }
        #expect(refusal?.errorDescription == "client_id mismatch. The code was not issued to \(appB).")
    }

    @Test func aCodeIsUsedOnce() throws {
        var fixture = try Fixture()
        let decision = try fixture.redeem()
        fixture.state.apply(decision, accessKey: "a2", refreshKey: "r2")
        #expect(fixture.state.codes["code"]?.used == true)
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.redeem() }
        #expect(refusal?.errorDescription == "The code has already been used.")
    }

    @Test func aCodeIsValidUntilItExpires() throws {
        let fixture = try Fixture()
        #expect(Self.refusal { () throws(AppleEndpointError) in try fixture.redeem(now: 1299) } == nil)
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.redeem(now: 1300) }
        #expect(refusal?.errorDescription == "The code has expired or has been revoked.")
        #expect(refusal?.reason == "the code expired at 1300; now is 1300")
    }

    @Test func aCodeOfAnEndedAuthorizationIsRefused() throws {
        var fixture = try Fixture()
        fixture.state.end(fixture.decision.authorizationKey, state: .revoked)
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.redeem() }
        #expect(refusal?.errorDescription == "The code has expired or has been revoked.")
        #expect(refusal?.reason == "the authorization was revoked since")
    }

    /// A code buys an access token, a refresh token and an `id_token` with the authorization's
    /// nonce.
    @Test func aCodeBuysBothTokensWithTheNonce() throws {
        var fixture = try Fixture()
        let decision = try fixture.redeem()
        #expect(decision.usedCode == "code")
        #expect(decision.issuesRefreshToken)
        #expect(decision.nonce == "n")
        #expect(decision.accessTokenExpiresAt == 1100 + Self.lifetime)
        fixture.state.apply(decision, accessKey: "a2", refreshKey: "r2")
        #expect(fixture.state.refreshTokens["r2"]?.grant.subject == fixture.decision.grant.subject)
        #expect(fixture.state.accessTokens["a2"]?.expiresAt == 1100 + Self.lifetime)
    }

    // MARK: - Refresh

    @Test func anUnknownRefreshTokenHasExpiredOrBeenRevoked() throws {
        let fixture = try Fixture()
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.refresh("other") }
        #expect(refusal?.errorDescription == "The token has expired or has been revoked.")
        #expect(refusal?.reason == "unknown refresh token")
    }

    @Test func theRefreshTokenBelongsToTheClientItWasIssuedTo() throws {
        let fixture = try Fixture()
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.refresh(clientID: appB) }
        #expect(refusal?.errorDescription == "client_id mismatch. The token was not issued to \(appB).")
    }

    @Test func aRefreshTokenOfAnEndedAuthorizationIsRefused() throws {
        var fixture = try Fixture()
        fixture.state.end(fixture.decision.authorizationKey, state: .notFound)
        let refusal = Self.refusal { () throws(AppleEndpointError) in try fixture.refresh() }
        #expect(refusal?.errorDescription == "The token has expired or has been revoked.")
        #expect(refusal?.reason == "the authorization was revoked")
    }

    /// Apple's refresh tokens do not rotate, and a refreshed `id_token` has no nonce.
    @Test func aRefreshBuysAnAccessTokenOnly() throws {
        var fixture = try Fixture()
        let decision = try fixture.refresh()
        #expect(decision.usedCode == nil)
        #expect(!decision.issuesRefreshToken)
        #expect(decision.nonce == nil)
        fixture.state.apply(decision, accessKey: "a2", refreshKey: "r2")
        #expect(fixture.state.refreshTokens["r2"] == nil)
        #expect(fixture.state.accessTokens["a2"] != nil)
    }

    // MARK: - Revocation

    /// RFC 7009 §2.2: an unknown token is no error, and changes nothing.
    @Test func anUnknownTokenChangesNothing() throws {
        #expect(try Fixture().revoke("other") == .nothing)
    }

    @Test func eitherTokenEndsTheWholeAuthorization() throws {
        var fixture = try Fixture()
        let key = fixture.decision.authorizationKey
        #expect(try fixture.revoke("access") == .end(key))
        let decision = try fixture.revoke("refresh")
        #expect(decision == .end(key))
        fixture.state.apply(decision)
        #expect(fixture.state.authorizations[key]?.state == .revoked)
        #expect(!fixture.state.isCurrent(fixture.decision.grant))
        // Already ended: nothing more to do.
        #expect(try fixture.revoke("access") == .nothing)
    }

    @Test func aTokenOfAnotherClientIsRefused() throws {
        let fixture = try Fixture()
        let refusal = Self.refusal { () throws(AppleEndpointError) in
            try fixture.revoke("refresh", clientID: appB)
        }
        #expect(refusal?.error == "invalid_grant")
        #expect(refusal?.errorDescription == "client_id mismatch. The token was not issued to \(appB).")
    }

    /// RFC 7009 §2.1: the hint orders the lookup. Here one key names a refresh token of `appA`
    /// and an access token of `appB`.
    @Test func theHintOrdersTheLookup() throws {
        var fixture = try Fixture()
        var other = fixture.decision.grant
        other.clientID = appB
        fixture.state.accessTokens["refresh"] = AccessTokenRecord(grant: other, expiresAt: 4600)
        #expect(try fixture.revoke("refresh") != .nothing)
        #expect(try fixture.revoke("refresh", hint: "refresh_token") != .nothing)
        #expect(try fixture.revoke("refresh", hint: "unknown") != .nothing)
        #expect(
            Self.refusal { () throws(AppleEndpointError) in
                try fixture.revoke("refresh", hint: "access_token")
            } != nil)
    }
}
