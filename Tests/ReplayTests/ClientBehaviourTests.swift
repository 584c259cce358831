import Recordings
import SignInSDK
import Testing

@testable import Replay

/// The SDK profile a capture's traffic shows, on the corpus's captures of django-oauth-toolkit.
@Suite struct ClientBehaviourTests {
    static func analysis(_ story: String) throws -> CaptureAnalysis {
        CaptureAnalysis(try CorpusTests.load("django-oauth-toolkit/" + story))
    }

    @Test("a stale refresh token refused and retried at once with the newer one is stale-refresh-copy")
    func staleCopyRetried() throws {
        let analysis = try Self.analysis("stale-refresh-copy")
        let retries = ClientBehaviour.staleRetries(analysis)
        // Entries 10 (the stale token, 400 invalid_grant) and 11 (the newer one, 200).
        #expect(retries.map { [$0.key, $0.value] } == [[10, 9]])
        let behaviour = ClientBehaviour(analysis)
        #expect(behaviour.profile == BehaviorProfile.KnownFault.staleRefreshCopy.rawValue)
        #expect(
            behaviour.findings.contains { $0.contains("entry 11 retries at once") }, "\(behaviour.findings)")
    }

    @Test("a stale refresh token after a relaunch, not retried, stays persist-late")
    func staleAfterRelaunchIsPersistLate() throws {
        let analysis = try Self.analysis("stale-refresh-token")
        #expect(ClientBehaviour.staleRetries(analysis).isEmpty)
        #expect(ClientBehaviour(analysis).profile == "persist-late")
    }

    @Test("refreshes of one token raced are not a retry")
    func raceIsNoRetry() throws {
        #expect(ClientBehaviour.staleRetries(try Self.analysis("refresh-race")).isEmpty)
    }
}
