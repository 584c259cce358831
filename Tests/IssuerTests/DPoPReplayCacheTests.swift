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

    /// Full, the cache refuses new proofs rather than forget ids whose proofs are still
    /// acceptable (RFC 9449 §11.1); the oldest generation goes first once it has aged out.
    @Test("bounded: refuses when full, forgets the oldest generation first")
    func bounded() {
        var cache = DPoPReplayCache(capacity: 4)
        #expect(cache.record("a", now: 1000, window: 60) == .recorded)
        #expect(cache.record("b", now: 1000, window: 60) == .recorded)
        // A new generation at 1120: a and b are the previous one.
        #expect(cache.record("c", now: 1120, window: 60) == .recorded)
        #expect(cache.record("d", now: 1120, window: 60) == .recorded)
        #expect(cache.record("e", now: 1121, window: 60) == .full)
        #expect(cache.record("a", now: 1121, window: 60) == .replayed, "full, ids are still checked")
        #expect(cache.count == 4)
        #expect(cache.nextForgetting(window: 60) == 1240)
        // At 1240 the oldest generation (a, b) is forgotten; c and d are kept.
        #expect(cache.record("e", now: 1240, window: 60) == .recorded)
        #expect(cache.record("c", now: 1240, window: 60) == .replayed)
        #expect(cache.record("a", now: 1240, window: 60) == .recorded)
        #expect(cache.count == 4)
        // However many proofs come, the count never passes the cap.
        for index in 0..<5000 {
            _ = cache.record("p\(index)", now: 1240 + Int64(index / 100), window: 60)
            #expect(cache.count <= 4)
        }
    }
}
