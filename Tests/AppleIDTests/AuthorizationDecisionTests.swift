import Testing

@testable import AppleID

/// The rules of a native authorization as `AppleAuthorizationRequest.admittedAccount` and
/// `AppleProviderState.decideAuthorization` decide them from the state, the request and `now`:
/// no provider, no signing. Each test fails when the rule it names is taken out.
@Suite struct AuthorizationDecisionTests {
    static let now: Int64 = 1000
    static let settings = AppleAuthorizationSettings(defaultTeamID: "DEFAULTTEAM", codeLifetime: 300)
    static let alice = AppleIDAccount(email: "Alice@Example.com", givenName: "Alice", familyName: "Appleseed")

    static func request(
        _ account: AppleIDAccount? = alice, bundleID: String = appA, teamID: String? = teamA,
        scopes: [AppleScope] = [.fullName, .email], nonce: String? = nil,
        decision: AppleAuthorizationRequest.Decision = .approve
    ) -> AppleAuthorizationRequest {
        AppleAuthorizationRequest(
            account: account, bundleID: bundleID, teamID: teamID, requestedScopes: scopes, nonce: nonce,
            decision: decision)
    }

    /// A state with nothing in it.
    static func emptyState() -> AppleProviderState { AppleProviderState(keys: AppleKeyRing(testKeySet)) }

    /// Decides `request` on `state` and applies the decision, as the provider does.
    @discardableResult
    static func authorize(
        _ request: AppleAuthorizationRequest, on state: inout AppleProviderState, now: Int64 = now
    )
        throws -> AppleAuthorizationDecision
    {
        let account = try request.admittedAccount()
        let decision = try state.decideAuthorization(request, account: account, settings: settings, now: now)
        state.apply(decision, codeKey: "code-\(now)")
        return decision
    }

    static func admissionFailure(_ request: AppleAuthorizationRequest) -> AppleAuthorizationError? {
        do throws(AppleAuthorizationError) {
            _ = try request.admittedAccount()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - The request's own rules

    @Test func withoutAnAppleIDTheRequestFailsUnknown() {
        #expect(Self.admissionFailure(Self.request(nil)) == .noAccount)
    }

    @Test func aClosedSheetIsCanceled() {
        #expect(Self.admissionFailure(Self.request(decision: .cancel)) == .canceled)
    }

    @Test func theBundleIDMustBePlausible() {
        for bundleID in ["", "com.example/app", "com.example app", String(repeating: "a", count: 156)] {
            #expect(Self.admissionFailure(Self.request(bundleID: bundleID))?.code == .failed)
        }
        #expect(Self.admissionFailure(Self.request(bundleID: "com.Example-1.app")) == nil)
        #expect(Self.admissionFailure(Self.request(bundleID: String(repeating: "a", count: 155))) == nil)
    }

    @Test func theAccountNeedsAnEmailAddress() {
        let noAt = AppleIDAccount(email: "alice.example.com")
        let tooLong = AppleIDAccount(email: String(repeating: "a", count: 309) + "@example.com")
        #expect(
            Self.admissionFailure(Self.request(noAt))
                == AppleAuthorizationError(.failed, "the Apple ID needs an email address"))
        #expect(Self.admissionFailure(Self.request(tooLong))?.code == .failed)
    }

    @Test func theNonceIsAtMost1024Bytes() {
        let longest = String(repeating: "n", count: 1024)
        #expect(Self.admissionFailure(Self.request(nonce: longest)) == nil)
        #expect(
            Self.admissionFailure(Self.request(nonce: longest + "n"))
                == AppleAuthorizationError(.failed, "nonce is longer than 1024 bytes"))
    }

    @Test func scopesAreCountedOnceInTheOrderAsked() {
        #expect(Self.request(scopes: [.email, .fullName, .email]).distinctScopes == [.email, .fullName])
    }

    // MARK: - The app's team

    @Test func anAppOfAnotherTeamFails() throws {
        var state = Self.emptyState()
        try Self.authorize(Self.request(), on: &state)
        #expect(throws: AppleAuthorizationError(.failed, "\(appA) belongs to team \(teamA), not \(teamB)")) {
            try state.decideAuthorization(
                Self.request(teamID: teamB), account: Self.alice, settings: Self.settings, now: Self.now)
        }
    }

    @Test func anUnregisteredAppTakesTheTeamNamedElseTheDefault() throws {
        var state = Self.emptyState()
        #expect(try Self.authorize(Self.request(teamID: teamB), on: &state).teamID == teamB)
        #expect(state.apps[appA] == teamB)
        #expect(
            try Self.authorize(Self.request(bundleID: appB, teamID: nil), on: &state).teamID == "DEFAULTTEAM")
        // A registered app without a team named keeps its own.
        #expect(try Self.authorize(Self.request(teamID: nil), on: &state).teamID == teamB)
    }

    // MARK: - First and later authorizations

    @Test func onlyAFirstAuthorizationSharesNameEmailAndScopes() throws {
        var state = Self.emptyState()
        let first = try Self.authorize(Self.request(), on: &state)
        #expect(first.isFirst)
        #expect(first.sharedFullName == ApplePersonName(givenName: "Alice", familyName: "Appleseed"))
        #expect(first.sharedEmail == "Alice@Example.com")
        #expect(first.authorizedScopes == [.fullName, .email])
        let later = try Self.authorize(Self.request(), on: &state)
        #expect(!later.isFirst)
        #expect(later.sharedFullName == nil)
        #expect(later.sharedEmail == nil)
        #expect(later.authorizedScopes.isEmpty)
        // The tokens still carry the email shared the first time.
        #expect(later.grant.email == "Alice@Example.com")
    }

    @Test func theNameIsSharedOnlyWhenAskedForAndKnown() throws {
        var state = Self.emptyState()
        #expect(try Self.authorize(Self.request(scopes: [.email]), on: &state).sharedFullName == nil)
        var other = Self.emptyState()
        let nameless = AppleIDAccount(email: "bob@example.com")
        #expect(try Self.authorize(Self.request(nameless), on: &other).sharedFullName == nil)
    }

    @Test func anAuthorizationEndedByRevokingOrStoppingIsFirstAgain() throws {
        for ending in [AppleCredentialState.revoked, .notFound] {
            var state = Self.emptyState()
            let first = try Self.authorize(Self.request(), on: &state)
            state.end(first.authorizationKey, state: ending)
            #expect(try Self.authorize(Self.request(), on: &state).isFirst)
        }
    }

    /// A transferred app's users already consented: not a first authorization.
    @Test func aTransferredAuthorizationIsNotFirst() throws {
        var state = Self.emptyState()
        let first = try Self.authorize(Self.request(), on: &state)
        state.end(first.authorizationKey, state: .transferred)
        let again = try Self.authorize(Self.request(), on: &state)
        #expect(!again.isFirst)
        #expect(again.authorization.state == .authorized)
        #expect(again.grant.generation == 1)
    }

    /// After an app transfer the authorization takes the app's new team, and its user id.
    @Test func aTransferredAuthorizationTakesTheNewTeam() throws {
        var state = Self.emptyState()
        let first = try Self.authorize(Self.request(), on: &state)
        state.apps[appA] = teamB
        state.end(first.authorizationKey, state: .transferred)
        let again = try Self.authorize(Self.request(teamID: nil), on: &state)
        #expect(again.authorization.teamID == teamB)
        #expect(state.authorizations[again.authorizationKey]?.teamID == teamB)
        #expect(again.grant.subject == AppleIdentifiers.subject(email: Self.alice.email, teamID: teamB))
    }

    @Test func theFirstAuthorizationFixesEmailSharingAndRelay() throws {
        var state = Self.emptyState()
        var hidden = Self.alice
        hidden.privateRelay = true
        let first = try Self.authorize(Self.request(hidden, scopes: [.fullName]), on: &state)
        #expect(!first.authorization.sharesEmail)
        #expect(first.grant.email == nil)
        // Later answers on the sheet change neither.
        let later = try Self.authorize(Self.request(Self.alice, scopes: [.email]), on: &state)
        #expect(!later.authorization.sharesEmail)
        #expect(later.authorization.usesPrivateRelay)
        #expect(later.grant.email == nil)
    }

    @Test func hideMyEmailSharesTheTeamsRelayAddress() throws {
        var state = Self.emptyState()
        var hidden = Self.alice
        hidden.privateRelay = true
        let decision = try Self.authorize(Self.request(hidden), on: &state)
        #expect(decision.grant.email == AppleIdentifiers.relayAddress(email: hidden.email, teamID: teamA))
        #expect(decision.grant.isPrivateEmail)
        #expect(decision.sharedEmail == decision.grant.email)
    }

    /// The address the account was first seen with, whatever case the device gives later.
    @Test func theSharedEmailIsTheOneFirstSeen() throws {
        var state = Self.emptyState()
        try Self.authorize(Self.request(bundleID: appB), on: &state)
        let lower = AppleIDAccount(email: "alice@example.com")
        #expect(try Self.authorize(Self.request(lower), on: &state).grant.email == "Alice@Example.com")
    }

    @Test func theAccountRecordTakesWhatTheDeviceKnowsNow() throws {
        var state = Self.emptyState()
        try Self.authorize(Self.request(), on: &state)
        let renamed = AppleIDAccount(
            email: Self.alice.email, givenName: "Ally", familyName: nil, realUserStatus: .unknown)
        let decision = try Self.authorize(Self.request(renamed), on: &state)
        #expect(decision.account.givenName == "Ally")
        #expect(decision.account.familyName == "Appleseed")
        #expect(decision.account.realUserStatus == .unknown)
        #expect(decision.grant.realUserStatus == .unknown)
        #expect(state.accounts["alice@example.com"]?.givenName == "Ally")
    }

    // MARK: - The grant and the code

    @Test func theSubjectIsStablePerTeam() throws {
        var state = Self.emptyState()
        let alpha = try Self.authorize(Self.request(), on: &state)
        let beta = try Self.authorize(Self.request(bundleID: appB), on: &state)
        let other = try Self.authorize(Self.request(bundleID: "com.example.gamma", teamID: teamB), on: &state)
        #expect(alpha.grant.subject == beta.grant.subject)
        #expect(alpha.grant.subject != other.grant.subject)
        #expect(alpha.grant.subject == AppleIdentifiers.subject(email: Self.alice.email, teamID: teamA))
    }

    @Test func theCodeIsStoredUnusedForItsLifetime() throws {
        var state = Self.emptyState()
        let decision = try Self.authorize(Self.request(nonce: "n"), on: &state, now: 40)
        #expect(decision.codeExpiresAt == 340)
        #expect(decision.grant.authTime == 40)
        #expect(decision.grant.nonce == "n")
        #expect(decision.grant.clientID == appA)
        let code = try #require(state.codes["code-40"])
        #expect(!code.used)
        #expect(code.expiresAt == 340)
        #expect(state.authorizations[decision.authorizationKey]?.state == .authorized)
    }
}
