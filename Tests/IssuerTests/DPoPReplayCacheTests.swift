import TestSupport
import Testing

@testable import Issuer

@Suite("DPoP replay cache")
struct DPoPReplayCacheTests {
    /// An id is a replay for at least twice the window after it was recorded, and forgotten
    /// within four times the window.
    @Test("retention by generations")
    func retention() {
        var cache = DPoPReplayCache()
        #expect(cache.record("a", now: 1000, window: 60) == .recorded)
        #expect(cache.record("a", now: 1000, window: 60) == .replayed)
        #expect(cache.record("b", now: 1119, window: 60) == .recorded)
        #expect(cache.record("a", now: 1120, window: 60) == .replayed)
        #expect(cache.record("a", now: 1239, window: 60) == .replayed)
        #expect(cache.record("b", now: 1238, window: 60) == .replayed)
        #expect(cache.record("a", now: 1481, window: 60) == .recorded)
    }

    /// A clock moved back forgets nothing.
    @Test("clock moved back")
    func clockBack() {
        var cache = DPoPReplayCache()
        #expect(cache.record("a", now: 1000, window: 60) == .recorded)
        #expect(cache.record("a", now: 500, window: 60) == .replayed)
        #expect(cache.count == 1)
    }
}
