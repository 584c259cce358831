import SignInSDK
import Testing

@Suite struct PendingAuthorizationsTests {
    func record(_ state: String, at time: Int64) -> PendingAuthorization {
        PendingAuthorization(
            state: state, nonce: "n", codeVerifier: "v", redirectURI: "app://cb", scopes: ["openid"],
            createdAt: time)
    }

    /// A record is taken once; the second callback with its state finds nothing.
    @Test func recordIsConsumedOnce() {
        var pending = PendingAuthorizations()
        pending.authorizationStarted(record("s1", at: 0), now: 0)
        #expect(pending.callbackReceived(state: "s1")?.state == "s1")
        #expect(pending.callbackReceived(state: "s1") == nil)
    }

    /// Several flows may be pending at once.
    @Test func severalFlowsMayBePending() {
        var pending = PendingAuthorizations()
        pending.authorizationStarted(record("s1", at: 0), now: 0)
        pending.authorizationStarted(record("s2", at: 5), now: 5)
        #expect(pending.callbackReceived(state: "s2") != nil)
        #expect(pending.callbackReceived(state: "s1") != nil)
    }

    /// Records older than the lifetime are dropped when a new flow starts.
    @Test func oldRecordsExpire() {
        var pending = PendingAuthorizations()
        pending.authorizationStarted(record("old", at: 0), now: 0)
        pending.authorizationStarted(record("new", at: 601), now: 601)
        #expect(!pending.contains(state: "old"))
        #expect(pending.contains(state: "new"))
    }

    /// An abandoned flow is forgotten.
    @Test func abandonedFlowIsForgotten() {
        var pending = PendingAuthorizations()
        pending.authorizationStarted(record("s1", at: 0), now: 0)
        pending.authorizationAbandoned(state: "s1")
        #expect(pending.count == 0)
    }
}
