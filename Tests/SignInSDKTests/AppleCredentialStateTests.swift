import SignInSDK
import Testing

/// `getCredentialState()` and the revocation notification (docs/sdk.md, "Native Sign in with
/// Apple"): the SDK asks Apple about the session's Apple user, and signs the user out when Apple
/// says the authorization ended.
@Suite struct AppleCredentialStateTests {
    func signedInWithApple() async throws -> SDKHarness {
        let harness = try await SDKHarness().configured()
        _ = try await harness.client.signInWithApple()
        return harness
    }

    func storedSession(_ harness: SDKHarness) async throws -> Session? {
        try await harness.client.storedSession()
    }

    /// The session keeps the Apple user id the credential came with, in its stored form too:
    /// an SDK of a later launch asks Apple about the same user.
    @Test func theSessionKeepsTheAppleUser() async throws {
        let harness = try await signedInWithApple()
        #expect(try await storedSession(harness)?.appleUserID == "apple-user")
        let relaunched = try await SDKHarness(
            issuer: harness.issuer, storage: harness.storage, preferences: harness.preferences
        ).configured()
        #expect(try await relaunched.client.getCredentialState() == .authorized)
        #expect(relaunched.apple.askedUserIDs.withLock { $0 } == ["apple-user"])
    }

    /// A refreshed session is still the Apple user's.
    @Test func refreshKeepsTheAppleUser() async throws {
        let harness = try await signedInWithApple()
        let renewed = try await harness.client.renewSession()
        #expect(renewed.appleUserID == "apple-user")
        #expect(try await storedSession(harness)?.appleUserID == "apple-user")
    }

    /// `authorized` leaves the session alone.
    @Test func authorizedKeepsTheSession() async throws {
        let harness = try await signedInWithApple()
        #expect(try await harness.client.getCredentialState() == .authorized)
        #expect(try await storedSession(harness) != nil)
    }

    /// `revoked` and `notFound` sign the user out locally: the session is cleared, the issuer is
    /// not called, and the state is returned.
    @Test(arguments: [AppleIDCredentialState.revoked, .notFound])
    func anEndedAuthorizationSignsOut(state: AppleIDCredentialState) async throws {
        let harness = try await signedInWithApple()
        harness.apple.credentialStates.withLock { $0 = state }
        let requests = harness.issuer.requests.count
        #expect(try await harness.client.getCredentialState() == state)
        #expect(try await storedSession(harness) == nil)
        #expect(harness.storage.keys.isEmpty)
        #expect(harness.issuer.requests.count == requests)
    }

    /// A session stored while Apple was being asked (another sign-in) is not the one Apple's
    /// answer is about: it stays.
    @Test func aSessionStoredMeanwhileStays() async throws {
        let harness = try await signedInWithApple()
        harness.apple.credentialStates.withLock { $0 = .revoked }
        let client = harness.client
        harness.apple.whileAsked.withLock { $0 = { _ = try? await client.signIn() } }
        #expect(try await client.getCredentialState() == .revoked)
        let session = try await storedSession(harness)
        #expect(session != nil && session?.appleUserID == nil)
    }

    /// `transferred` is reported as such, and the session stays: the user's identifier is to be
    /// migrated, not signed out.
    @Test func transferredIsReportedAndKeepsTheSession() async throws {
        let harness = try await signedInWithApple()
        harness.apple.credentialStates.withLock { $0 = .transferred }
        #expect(try await harness.client.getCredentialState() == .transferred)
        #expect(try await storedSession(harness)?.appleUserID == "apple-user")
    }

    /// Which states end the session.
    @Test func statesThatEndTheSession() {
        #expect(AppleIDCredentialState.allCases.filter(\.endsSession) == [.revoked, .notFound])
    }

    /// Apple not answering is `apple_authorization_failed`, and the session stays.
    @Test func anUnansweredCheckKeepsTheSession() async throws {
        let harness = try await signedInWithApple()
        harness.apple.credentialStates.withLock { $0 = nil }
        let error = await capture { try await harness.client.getCredentialState() }
        #expect(error?.code == .appleAuthorizationFailed)
        #expect(try await storedSession(harness) != nil)
    }

    /// Without a session there is nobody to ask about; a session from the web flow has no Apple
    /// user. Apple is not asked in either case.
    @Test func onlyAnAppleSessionCanBeChecked() async throws {
        let harness = try await SDKHarness().configured()
        #expect(await capture { try await harness.client.getCredentialState() }?.code == .noSession)
        _ = try await harness.client.signIn()
        #expect(await capture { try await harness.client.getCredentialState() }?.code == .noAppleUser)
        #expect(harness.apple.askedUserIDs.withLock { $0 }.isEmpty)
    }

    /// Before `configure`, the call is refused like every other.
    @Test func needsConfiguration() async throws {
        let harness = SDKHarness()
        #expect(await capture { try await harness.client.getCredentialState() }?.code == .notConfigured)
    }

    /// `configure` observes the notification once per SDK instance, however often it is called.
    @Test func configureObservesTheNotificationOnce() async throws {
        let harness = SDKHarness()
        #expect(harness.apple.revocationObservers.withLock { $0.count } == 0)
        _ = try await harness.configured()
        _ = try await harness.configured()
        #expect(harness.apple.revocationObservers.withLock { $0.count } == 1)
    }

    /// The notification signs the Apple user out.
    @Test func theNotificationSignsTheAppleUserOut() async throws {
        let harness = try await signedInWithApple()
        await harness.apple.postRevocation()
        #expect(try await storedSession(harness) == nil)
    }

    /// A session from the web flow is not the Apple ID's: the notification leaves it.
    @Test func theNotificationLeavesAWebSession() async throws {
        let harness = try await SDKHarness().configured()
        _ = try await harness.client.signIn()
        await harness.apple.postRevocation()
        #expect(try await storedSession(harness) != nil)
        #expect(try await harness.client.handleAppleCredentialRevoked() == false)
    }
}
