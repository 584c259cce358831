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
        #expect(first && !again && otherClient)
        #expect(cache.count == 2)
        let afterExpiry = cache.use(clientID: "c", id: "2", expiresAt: 300, now: 100)
        #expect(afterExpiry && cache.count == 1)
        let reused = cache.use(clientID: "a", id: "1", expiresAt: 400, now: 101)
        #expect(reused)
    }
}
