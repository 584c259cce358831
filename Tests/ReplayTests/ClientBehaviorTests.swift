import Recordings
import SignInSDK
import Testing

@testable import Replay

/// The SDK profile a capture's traffic shows, on the corpus's captures of django-oauth-toolkit.
@Suite struct ClientBehaviorTests {
    static func analysis(_ story: String) throws -> CaptureAnalysis {
        CaptureAnalysis(try CorpusTests.load("django-oauth-toolkit/" + story))
    }

    @Test("a stale refresh token refused and retried at once with the newer one is stale-refresh-copy")
    func staleCopyRetried() throws {
        let analysis = try Self.analysis("stale-refresh-copy")
        let retries = ClientBehavior.staleRetries(analysis)
        // Entries 10 (the stale token, 400 invalid_grant) and 11 (the newer one, 200).
        #expect(retries.map { [$0.key, $0.value] } == [[10, 9]])
        let behavior = ClientBehavior(analysis)
        #expect(behavior.profile == (try BehaviorProfile(named: "stale-refresh-copy")))
        #expect(
            behavior.findings.contains { $0.contains("entry 11 retries at once") }, "\(behavior.findings)")
    }

    /// mitmproxy's HAR `time` counts a new connection's setup twice (its `wait` holds the
    /// `connect` it also reports), so on a busy machine a retry sent at once after the refusal
    /// would seem to start before the refusal came back. The timings' send + wait + receive say
    /// when it did. In the checked-in capture of django-allauth the retry starts 1.3 ms after
    /// `start + time`; here the refusal's `time` grows by 20 ms more than its timings, as when
    /// the connection took longer to set up.
    @Test("a retry right after a refusal on a new connection is still a retry (mitmproxy's time)")
    func retryAfterDoubleCountedConnect() throws {
        var capture = try CorpusTests.load("django-allauth/stale-refresh-copy")
        let refused = try #require(capture.exchanges.firstIndex { $0.status == 400 })
        #expect(capture.exchanges[refused].answeredAfterMilliseconds != nil)
        capture.exchanges[refused].timeMilliseconds += 20
        let analysis = CaptureAnalysis(capture)
        #expect(ClientBehavior.staleRetries(analysis).values.contains(refused))
        #expect(ClientBehavior(analysis).profile == (try BehaviorProfile(named: "stale-refresh-copy")))
    }

    @Test("a stale refresh token after a relaunch, not retried, stays persist-late")
    func staleAfterRelaunchIsPersistLate() throws {
        let analysis = try Self.analysis("stale-refresh-token")
        #expect(ClientBehavior.staleRetries(analysis).isEmpty)
        #expect(ClientBehavior(analysis).profile == (try BehaviorProfile(named: "persist-late")))
    }

    @Test("refreshes of one token raced are not a retry")
    func raceIsNoRetry() throws {
        #expect(ClientBehavior.staleRetries(try Self.analysis("refresh-race")).isEmpty)
    }
}
