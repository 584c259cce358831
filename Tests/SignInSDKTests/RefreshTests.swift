import Clocks
import Cryptography
import HTTPCore
import JSON
import Locking
import SignInSDK
import Testing

@Suite struct RefreshTests {
    func signedIn(profile: BehaviorProfile = .default, issuer: FakeIssuer = FakeIssuer()) async throws
        -> SDKHarness
    {
        let harness = try await SDKHarness(issuer: issuer, profile: profile).configured()
        _ = try await harness.client.signIn()
        return harness
    }

    func storedSession(_ harness: SDKHarness) throws -> Session? {
        try harness.storage.load(key: SignInClient.credentialsKey).map { try Session(storedBytes: $0) }
    }

    /// A fresh session is returned as stored; one within 60 s of expiry is refreshed first.
    @Test func getSessionRefreshesNearExpiry() async throws {
        let harness = try await signedIn()
        let first = try #require(try await harness.client.getSession())
        #expect(harness.issuer.count("token:refresh_token") == 0)
        harness.issuer.clock.advance(by: 3600 - 59)
        let second = try #require(try await harness.client.getSession())
        #expect(harness.issuer.count("token:refresh_token") == 1)
        #expect(second.refreshToken != first.refreshToken)
        #expect(try storedSession(harness)?.refreshToken == second.refreshToken)
    }

    /// Field bug 1: concurrent callers share one refresh (single flight and serialized); naive
    /// callers race, the issuer sees a rotated token reused and the session ends.
    @Test(arguments: BehaviorProfile.RefreshStrategy.allCases)
    func concurrentForcedRefreshes(strategy: BehaviorProfile.RefreshStrategy) async throws {
        let harness = try await signedIn(profile: BehaviorProfile(refreshStrategy: strategy))
        harness.issuer.update { $0.refreshDelay = .milliseconds(20) }
        let client = harness.client
        async let a = capture { try await client.getAccessToken(forceRefresh: true) }
        async let b = capture { try await client.getAccessToken(forceRefresh: true) }
        let errors = await [a, b]
        switch strategy {
        case .singleFlight:
            #expect(errors == [nil, nil])
            #expect(harness.issuer.count("token:refresh_token") == 1)
            #expect(try storedSession(harness) != nil)
        case .serialized:
            #expect(errors == [nil, nil])
            #expect(harness.issuer.count("token:refresh_token") == 2)
            #expect(try storedSession(harness) != nil)
        case .naive:
            // The loser's reuse revoked the whole family: the user is logged out, and whatever
            // the winner stored is dead too.
            #expect(errors.compactMap { $0?.code } == [.sessionExpired])
            let next = await capture { try await client.getAccessToken(forceRefresh: true) }
            #expect(next?.code == .sessionExpired || next?.code == .noSession)
        }
    }

    /// The shared refresh is started through the environment's `TaskStarter`: once for two
    /// concurrent single-flight callers, once per caller when serialized, never when naive (each
    /// caller refreshes in its own call).
    @Test(arguments: BehaviorProfile.RefreshStrategy.allCases)
    func sharedRefreshStartsThroughTheTaskStarter(strategy: BehaviorProfile.RefreshStrategy) async throws {
        let starter = CountingTaskStarter()
        let harness = try await SDKHarness(
            profile: BehaviorProfile(refreshStrategy: strategy), taskStarter: starter
        ).configured()
        _ = try await harness.client.signIn()
        harness.issuer.update { $0.refreshDelay = .milliseconds(20) }
        let client = harness.client
        async let a = capture { try await client.getAccessToken(forceRefresh: true) }
        async let b = capture { try await client.getAccessToken(forceRefresh: true) }
        _ = await [a, b]
        let expected =
            switch strategy {
            case .singleFlight: 1
            case .serialized: 2
            case .naive: 0
            }
        #expect(starter.started == expected)
    }

    /// With no starter given, the environment starts shared work with a plain `Task { }`, and
    /// a refresh works as with any other starter.
    @Test func defaultTaskStarterIsAPlainTask() async throws {
        let environment = SignInEnvironment(
            transport: FakeIssuer().transport, clock: ManualWallClock(now: 0), random: SeededRandom(seed: 1))
        #expect(environment.taskStarter is UnstructuredTaskStarter)
        let harness = try await signedIn()
        let before = try #require(try storedSession(harness))
        let token = try await harness.client.getAccessToken(forceRefresh: true)
        #expect(token != before.accessToken)
        #expect(harness.issuer.count("token:refresh_token") == 1)
    }

    /// A failed refresh lets the next call retry (single flight does not cache failures).
    @Test func failureLetsTheNextCallRetry() async throws {
        let harness = try await signedIn()
        harness.issuer.update { $0.refreshFailure = HTTPResponse(status: 503) }
        let error = await capture { try await harness.client.getAccessToken(forceRefresh: true) }
        #expect(error?.code == .transport)
        harness.issuer.update { $0.refreshFailure = nil }
        _ = try await harness.client.getAccessToken(forceRefresh: true)
        #expect(harness.issuer.count("token:refresh_token") == 2)
    }

    /// A transport error keeps the session; `invalid_grant` ends it.
    @Test func transportErrorKeepsAndInvalidGrantEnds() async throws {
        let harness = try await signedIn()
        harness.issuer.update { $0.refreshFailure = HTTPResponse(status: 502, body: Array("<html>".utf8)) }
        #expect(
            await capture { try await harness.client.getAccessToken(forceRefresh: true) }?.code == .transport)
        #expect(try storedSession(harness) != nil)
        harness.issuer.update { $0.refreshFailure = .json(["error": "invalid_grant"], status: 400) }
        let error = await capture { try await harness.client.getAccessToken(forceRefresh: true) }
        #expect(error?.code == .sessionExpired && error?.oauthError == "invalid_grant")
        #expect(try storedSession(harness) == nil)
    }

    /// Other OAuth errors (`invalid_client`, `server_error`) do not end the session.
    @Test func otherOAuthErrorsKeepTheSession() async throws {
        let harness = try await signedIn()
        harness.issuer.update { $0.refreshFailure = .json(["error": "temporarily_unavailable"], status: 503) }
        let error = await capture { try await harness.client.getAccessToken(forceRefresh: true) }
        #expect(error?.code == .tokenRequestFailed)
        #expect(try storedSession(harness) != nil)
    }

    /// Field bug 3: a response without `refresh_token` keeps the old one, unless the fault drops it.
    @Test(arguments: [false, true]) func responseWithoutRefreshToken(faulty: Bool) async throws {
        let harness = try await signedIn(
            profile: faulty ? BehaviorProfile(faults: [.dropRefreshToken]) : .default)
        harness.issuer.update {
            $0.omitRefreshTokenOnRefresh = true
            $0.rotateReuseRevokesFamily = false
        }
        let before = try #require(try storedSession(harness)?.refreshToken)
        harness.issuer.update { $0.refreshTokens[before] = true }  // a non-rotating issuer
        _ = try await harness.client.getAccessToken(forceRefresh: true)
        let second = await capture { try await harness.client.getAccessToken(forceRefresh: true) }
        if faulty {
            #expect(second?.code == .noRefreshToken)
        } else {
            #expect(second == nil)
            #expect(try storedSession(harness)?.refreshToken == before)
        }
    }

    /// Field bug 2: refreshed credentials written late are lost when the app dies first.
    @Test(arguments: [false, true]) func killAfterRefresh(faulty: Bool) async throws {
        let issuer = FakeIssuer()
        let storage = InMemoryTokenStorage()
        let preferences = InMemoryAppPreferences()
        let profile = faulty ? BehaviorProfile(faults: [.persistLate]) : .default
        let first = try await SDKHarness(
            issuer: issuer, profile: profile, storage: storage, preferences: preferences
        )
        .configured()
        _ = try await first.client.signIn()
        _ = try await first.client.getAccessToken(forceRefresh: true)
        // The app is killed: the SDK instance and its memory are gone; storage stays.
        let relaunched = try await SDKHarness(
            issuer: issuer, profile: profile, storage: storage, preferences: preferences
        ).configured()
        let error = await capture { try await relaunched.client.getAccessToken(forceRefresh: true) }
        #expect((error?.code == .sessionExpired) == faulty)
    }

    /// The refresh tokens the SDK's refresh requests presented, in order.
    func presentedRefreshTokens(_ issuer: FakeIssuer) throws -> [String] {
        try issuer.state.withLock { $0.tokenRequests }.compactMap { request in
            let form = try request.formParameters()
            return form["grant_type"] == "refresh_token" ? form["refresh_token"] : nil
        }
    }

    /// `stale-refresh-copy`: the second refresh presents the sign-in's refresh token again, is
    /// refused, and is retried once with the stored one; an issuer without reuse detection
    /// answers the retry and the session survives. The default SDK presents each token once.
    @Test(arguments: [false, true]) func staleCopyRetriedWithTheStoredToken(faulty: Bool) async throws {
        let issuer = FakeIssuer()
        issuer.update { $0.rotateReuseRevokesFamily = false }
        let harness = try await signedIn(
            profile: faulty ? BehaviorProfile(faults: [.staleRefreshCopy]) : .default, issuer: issuer)
        let signedInWith = try #require(try storedSession(harness)?.refreshToken)
        _ = try await harness.client.getAccessToken(forceRefresh: true)
        let rotated = try #require(try storedSession(harness)?.refreshToken)
        let error = await capture { try await harness.client.getAccessToken(forceRefresh: true) }
        #expect(error == nil)
        let presented = try presentedRefreshTokens(issuer)
        if faulty {
            #expect(presented == [signedInWith, signedInWith, rotated])
        } else {
            #expect(presented == [signedInWith, rotated])
        }
        let stored = try #require(try storedSession(harness)?.refreshToken)
        #expect(stored != rotated && stored != signedInWith)
    }

    /// `stale-refresh-copy` against an issuer that revokes the family on reuse (RFC 9700
    /// §4.14.2): the stale copy revokes it, the retry is refused too, and the session is over.
    @Test func staleCopyMeetsReuseDetection() async throws {
        let harness = try await signedIn(profile: BehaviorProfile(faults: [.staleRefreshCopy]))
        _ = try await harness.client.getAccessToken(forceRefresh: true)
        let error = await capture { try await harness.client.getAccessToken(forceRefresh: true) }
        #expect(error?.code == .sessionExpired)
        #expect(harness.issuer.count("token:refresh_token") == 3)
        #expect(try storedSession(harness) == nil)
    }

    /// `stale-refresh-copy`: the copy is the process's own, so a relaunched app first refreshes
    /// with the stored token, and a new sign-in replaces the copy.
    @Test func staleCopyIsTakenAgainAfterARelaunchOrASignIn() async throws {
        let issuer = FakeIssuer()
        issuer.update { $0.rotateReuseRevokesFamily = false }
        let storage = InMemoryTokenStorage()
        let preferences = InMemoryAppPreferences()
        let profile = BehaviorProfile(faults: [.staleRefreshCopy])
        let first = try await SDKHarness(
            issuer: issuer, profile: profile, storage: storage, preferences: preferences
        ).configured()
        _ = try await first.client.signIn()
        _ = try await first.client.getAccessToken(forceRefresh: true)
        let relaunched = try await SDKHarness(
            issuer: issuer, profile: profile, storage: storage, preferences: preferences
        ).configured()
        _ = try await relaunched.client.getAccessToken(forceRefresh: true)
        #expect(issuer.count("token:refresh_token") == 2)
        _ = try await relaunched.client.signIn()
        _ = try await relaunched.client.getAccessToken(forceRefresh: true)
        #expect(issuer.count("token:refresh_token") == 3)
    }

    /// Refreshed ID tokens are verified, and must name the same subject.
    @Test func refreshedIDTokenMustNameTheSameSubject() async throws {
        let harness = try await signedIn()
        harness.issuer.update { $0.claimOverrides["sub"] = "user-2" }
        let error = await capture { try await harness.client.getAccessToken(forceRefresh: true) }
        #expect(error?.code == .idTokenInvalid)
    }

    /// No session: `getSession` is nil and `getAccessToken` says so.
    @Test func noSession() async throws {
        let harness = try await SDKHarness().configured()
        #expect(try await harness.client.getSession() == nil)
        #expect(await capture { try await harness.client.getAccessToken() }?.code == .noSession)
    }
}

/// A `TaskStarter` that counts the tasks it starts, each a plain `Task { }`.
final class CountingTaskStarter: TaskStarter {
    private let count = Mutex(0)
    var started: Int { count.withLock { $0 } }

    func startTask<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success)
        -> Task<Success, Never>
    {
        count.withLock { $0 += 1 }
        return Task { await operation() }
    }
}
