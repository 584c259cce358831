import TestSupport
import Testing

@testable import Issuer

@Suite("Refresh token expiry queue")
struct TokenExpiryQueueTests {
    /// Keys come out in expiry order, and only once expired.
    @Test("pops expired keys in order")
    func order() {
        var queue = ExpiryQueue<String>()
        for (key, expiry) in [("c", 30), ("a", 10), ("e", 50), ("b", 20), ("d", 40), ("a2", 10)] {
            queue.insert(key, expiresAt: Int64(expiry))
        }
        #expect(queue.popExpired(now: 9) == nil)
        var popped: [String] = []
        while let key = queue.popExpired(now: 40) { popped.append(key) }
        #expect(popped.count == 5)
        #expect(Set(popped.prefix(2)) == ["a", "a2"])
        #expect(Array(popped.suffix(3)) == ["b", "c", "d"])
        #expect(queue.count == 1)
        #expect(queue.popExpired(now: 50) == "e")
        #expect(queue.popExpired(now: 1000) == nil)
    }

    /// Pseudo-random expiries over two chunks of storage come out in non-decreasing order, also
    /// when popping and inserting interleave. (Kept small: the test runs beside timing-sensitive
    /// ones, and a debug build is slow.)
    @Test("heap order under many insertions")
    func many() {
        var queue = ExpiryQueue<Int>()
        var value: UInt64 = 12345
        var expiries: [Int64] = []
        func add(base: Int64) {
            value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            expiries.append(base + Int64(value >> 40) % 10_000)
            queue.insert(expiries.count - 1, expiresAt: expiries[expiries.count - 1])
        }
        for _ in 0..<4200 { add(base: 0) }
        var popped: [Int64] = []
        while let key = queue.popExpired(now: 10_000) { popped.append(expiries[key]) }
        #expect(popped.count == 4200)
        #expect(popped == popped.sorted())
        #expect(queue.count == 0)
        for round in Int64(1)...3 {
            for _ in 0..<600 { add(base: round * 10_000) }
            var batch: [Int64] = []
            while let key = queue.popExpired(now: round * 10_000 + 5000) { batch.append(expiries[key]) }
            #expect(batch == batch.sorted())
            #expect(batch.allSatisfy { $0 <= round * 10_000 + 5000 })
        }
        var rest: [Int64] = []
        while let key = queue.popExpired(now: .max) { rest.append(expiries[key]) }
        #expect(rest == rest.sorted())
        #expect(queue.count == 0)
    }

    /// Removing keys in bulk keeps the rest in expiry order, across chunks.
    @Test("bulk removal keeps the heap")
    func bulkRemoval() {
        var queue = ExpiryQueue<Int>()
        for key in 0..<10_000 { queue.insert(key, expiresAt: Int64((key * 7919) % 10_007)) }
        queue.removeAll { $0 % 3 != 0 }
        #expect(queue.count == 3334)
        #expect(queue.nextExpiry == 0)
        var last: Int64 = -1
        var popped = 0
        while let key = queue.popExpired(now: .max) {
            let expiry = Int64((key * 7919) % 10_007)
            #expect(key % 3 == 0 && expiry >= last)
            last = expiry
            popped += 1
        }
        #expect(popped == 3334)
    }
}
