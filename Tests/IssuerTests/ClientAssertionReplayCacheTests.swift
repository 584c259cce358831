import Testing

@testable import Issuer

@Suite("client assertion replay cache")
struct ClientAssertionReplayCacheTests {
    /// A jti is refused again until its assertion expires, then forgotten; two clients may use
    /// the same jti.
    @Test("remembers a jti until it expires")
    func expiry() {
        var cache = ClientAssertionReplayCache()
        let first = cache.use(clientID: "a", id: "1", expiresAt: 100, now: 0)
        let again = cache.use(clientID: "a", id: "1", expiresAt: 100, now: 50)
        let otherClient = cache.use(clientID: "b", id: "1", expiresAt: 100, now: 50)
        #expect(first == .recorded && again == .replayed && otherClient == .recorded)
        #expect(cache.count == 2)
        let afterExpiry = cache.use(clientID: "c", id: "2", expiresAt: 300, now: 100)
        #expect(afterExpiry == .recorded && cache.count == 1)
        let reused = cache.use(clientID: "a", id: "1", expiresAt: 400, now: 101)
        #expect(reused == .recorded)
    }

    /// Full, the cache refuses new assertions rather than forget unexpired ones (RFC 7523 §3:
    /// a forgotten jti could be replayed until its exp); the earliest expiry frees room first.
    @Test("bounded: refuses when full, frees the earliest expiry first")
    func bounded() {
        var cache = ClientAssertionReplayCache(capacity: 3)
        #expect(cache.use(clientID: "a", id: "1", expiresAt: 100, now: 0) == .recorded)
        #expect(cache.use(clientID: "a", id: "2", expiresAt: 50, now: 0) == .recorded)
        #expect(cache.use(clientID: "a", id: "3", expiresAt: 200, now: 0) == .recorded)
        #expect(cache.use(clientID: "a", id: "4", expiresAt: 300, now: 10) == .full)
        #expect(cache.count == 3)
        #expect(cache.nextExpiry == 50)
        // Every id held is still refused as a replay while full.
        #expect(cache.use(clientID: "a", id: "1", expiresAt: 100, now: 10) == .replayed)
        // The earliest expiry goes first, making room for one.
        #expect(cache.use(clientID: "a", id: "4", expiresAt: 300, now: 50) == .recorded)
        #expect(cache.use(clientID: "a", id: "5", expiresAt: 300, now: 50) == .full)
        #expect(cache.use(clientID: "a", id: "3", expiresAt: 300, now: 50) == .replayed)
        #expect(cache.count == 3)
        // Thousands of assertions never hold more than the cap.
        for index in 0..<5000 {
            _ = cache.use(
                clientID: "b", id: String(index), expiresAt: 1000 + Int64(index), now: 60 + Int64(index))
            #expect(cache.count <= 3)
        }
    }
}
