import HTTPCore
import Locking
import SignInSDK
import Testing

/// A store that refuses reads as a keychain does before the first unlock.
final class LockableStorage: TokenStorage {
    let inner = InMemoryTokenStorage()
    let locked = Mutex(false)

    func save(key: String, value: [UInt8]) throws(TokenStorageError) {
        if locked.withLock({ $0 }) { throw TokenStorageError(.unavailable, "locked", status: -25308) }
        try inner.save(key: key, value: value)
    }

    func load(key: String) throws(TokenStorageError) -> [UInt8]? {
        if locked.withLock({ $0 }) { throw TokenStorageError(.unavailable, "locked", status: -25308) }
        return try inner.load(key: key)
    }

    func delete(key: String) throws(TokenStorageError) { try inner.delete(key: key) }
}

@Suite struct StorageAndSignOutTests {
    /// Field bug 4: an unreadable keychain is an error that keeps the session; the fault signs out.
    @Test(arguments: [false, true]) func unreadableKeychain(faulty: Bool) async throws {
        let issuer = FakeIssuer()
        let storage = LockableStorage()
        let harness = SDKHarness(
            issuer: issuer, profile: faulty ? BehaviorProfile(faults: [.keychainErrorSignsOut]) : .default)
        await harness.client.setTokenStorage(storage)
        try await harness.client.configure(options: harness.options)
        _ = try await harness.client.signIn()
        storage.locked.withLock { $0 = true }
        let error = await capture { try await harness.client.getSession() }
        storage.locked.withLock { $0 = false }
        if faulty {
            #expect(error == nil)
            #expect(try await harness.client.getSession() == nil)
        } else {
            #expect(error?.code == .storage)
            #expect(try await harness.client.getSession() != nil)
        }
    }

    /// Field bug 16: a fresh install clears what a previous one left, unless the fault keeps it.
    @Test(arguments: [false, true]) func reinstall(faulty: Bool) async throws {
        let issuer = FakeIssuer()
        let storage = InMemoryTokenStorage()
        let profile = faulty ? BehaviorProfile(faults: [.keepKeychainOnReinstall]) : .default
        let first = try await SDKHarness(issuer: issuer, profile: profile, storage: storage).configured()
        _ = try await first.client.signIn()
        // Reinstalled: new preferences, same keychain.
        let second = try await SDKHarness(
            issuer: issuer, profile: profile, storage: storage, preferences: InMemoryAppPreferences()
        ).configured()
        #expect((try await second.client.getSession() != nil) == faulty)
    }

    /// A relaunch (same preferences) keeps the session.
    @Test func relaunchKeepsTheSession() async throws {
        let issuer = FakeIssuer()
        let storage = InMemoryTokenStorage()
        let preferences = InMemoryAppPreferences()
        let first = try await SDKHarness(issuer: issuer, storage: storage, preferences: preferences)
            .configured()
        _ = try await first.client.signIn()
        let second = try await SDKHarness(issuer: issuer, storage: storage, preferences: preferences)
            .configured()
        #expect(try await second.client.getSession() != nil)
    }

    /// Sign-out opens end-session in the web sheet with `id_token_hint` and clears local tokens
    /// whatever the issuer answers: without a post-logout redirect URI nothing comes back
    /// (unconfirmed), and an error page fails it.
    @Test(arguments: [200, 500]) func signOutClearsWhateverTheIssuerSays(status: Int) async throws {
        let harness = try await SDKHarness().configured()
        _ = try await harness.client.signIn()
        harness.issuer.update { $0.endSessionStatus = status }
        let outcome = try await harness.client.signOut(callEndSession: true)
        switch outcome.endSession {
        case .unconfirmed: #expect(status == 200)
        case .failed(let why): #expect(status == 500 && why.contains("500"), "\(why)")
        default: Issue.record("unexpected \(outcome)")
        }
        #expect(!outcome.acknowledgedByIssuer)
        #expect(harness.issuer.count("logout") == 1)
        #expect(harness.storage.keys.isEmpty)
    }

    /// The end-session request goes to the web sheet (RP-Initiated Logout §2: the RP redirects
    /// the user agent), with the cookie jar sign-in used, and never through the SDK's own client.
    @Test(arguments: [true, false]) func signOutUsesTheSheet(ephemeral: Bool) async throws {
        let harness = try await SDKHarness(
            prefersEphemeralSession: ephemeral, postLogoutRedirectURI: "com.example.app://auth/logout"
        ).configured()
        _ = try await harness.client.signIn()
        let outcome = try await harness.client.signOut()
        #expect(outcome.endSession == .acknowledged)
        let sheets = harness.agent.presented.withLock { $0 }
        let signOut = try #require(sheets.last)
        #expect(signOut.purpose == .signOut)
        #expect(signOut.prefersEphemeralSession == ephemeral)
        #expect(signOut.redirectURI == "com.example.app://auth/logout")
        #expect(sheets.first?.prefersEphemeralSession == ephemeral)
        let query = try URLParts.queryParameters(of: signOut.url)
        #expect(query["id_token_hint"] != nil)
        #expect(query["client_id"] == harness.clientID)
    }

    /// `back-channel-logout` (field bug 14) sends end-session from the SDK's HTTP client: no
    /// sheet, so no browser cookie reaches the issuer.
    @Test func backChannelLogoutSkipsTheSheet() async throws {
        let seen = Mutex<[String]>([])
        let issuer = FakeIssuer()
        let transport = ClosureTransport { request throws(HTTPError) in
            seen.withLock { $0.append(request.path) }
            return try await issuer.respond(request)
        }
        let harness = try await SDKHarness(
            issuer: issuer, profile: BehaviorProfile(faults: [.backChannelLogout]), transport: transport,
            postLogoutRedirectURI: "com.example.app://auth/logout"
        ).configured()
        _ = try await harness.client.signIn()
        let outcome = try await harness.client.signOut()
        #expect(outcome.endSession == .acknowledged)
        #expect(seen.withLock { $0 }.contains("/logout"))
        #expect(harness.agent.presented.withLock { $0 }.allSatisfy { $0.purpose == .signIn })
    }

    /// RP-Initiated Logout §3 with a post-logout redirect URI: the request carries a `state`;
    /// an echoed one or none (field bug 8) is the issuer's acknowledgement, a foreign one is
    /// not, and local tokens are cleared in every case.
    @Test(arguments: [(LogoutState.echo, true), (.none, true), (.other("forged"), false)])
    func signOutChecksTheLogoutState(returned: LogoutState, acknowledged: Bool) async throws {
        let harness = try await SDKHarness(postLogoutRedirectURI: "com.example.app://auth/logout")
            .configured()
        _ = try await harness.client.signIn()
        harness.issuer.update { $0.logoutState = returned }
        #expect(try await harness.client.signOut().acknowledgedByIssuer == acknowledged)
        let sent = try #require(harness.agent.presented.withLock { $0 }.last)
        let query = try URLParts.queryParameters(of: sent.url)
        #expect(query["post_logout_redirect_uri"] == "com.example.app://auth/logout")
        #expect((query["state"] ?? "").count >= 43)
        #expect(harness.storage.keys.isEmpty)
    }

    /// Field bug 8: the faulty SDK requires the logout `state` back, fails the sign-out without
    /// it, and the session stays; with the state echoed it signs out like the correct one.
    @Test(arguments: [LogoutState.none, .echo]) func logoutStateRequired(returned: LogoutState) async throws {
        let harness = try await SDKHarness(
            profile: BehaviorProfile(faults: [.logoutStateRequired]),
            postLogoutRedirectURI: "com.example.app://auth/logout"
        ).configured()
        _ = try await harness.client.signIn()
        harness.issuer.update { $0.logoutState = returned }
        let error = await capture { try await harness.client.signOut() }
        if case .none = returned {
            #expect(error?.code == .missingState)
            #expect(try await harness.client.getSession() != nil)
        } else {
            #expect(error == nil)
            #expect(harness.storage.keys.isEmpty)
        }
    }

    /// A sign-out whose sheet the person closes still clears local tokens, unconfirmed.
    @Test func signOutClosedSheetClears() async throws {
        let harness = try await SDKHarness().configured()
        _ = try await harness.client.signIn()
        harness.agent.behavior.withLock { $0 = .cancel }
        let outcome = try await harness.client.signOut()
        guard case .unconfirmed = outcome.endSession else {
            Issue.record("expected unconfirmed, got \(outcome)")
            return
        }
        #expect(harness.storage.keys.isEmpty)
    }

    /// A back-channel sign-out over a dead network still clears local tokens.
    @Test func signOutOfflineClears() async throws {
        let issuer = FakeIssuer()
        let offline = Mutex(false)
        let transport = ClosureTransport { request throws(HTTPError) in
            if offline.withLock({ $0 }) { throw HTTPError(.connectionFailed, "offline") }
            return try await issuer.respond(request)
        }
        let harness = try await SDKHarness(
            issuer: issuer, profile: BehaviorProfile(faults: [.backChannelLogout]), transport: transport
        ).configured()
        _ = try await harness.client.signIn()
        offline.withLock { $0 = true }
        let outcome = try await harness.client.signOut()
        guard case .failed = outcome.endSession else {
            Issue.record("expected failed, got \(outcome)")
            return
        }
        #expect(harness.storage.keys.isEmpty)
    }
}
