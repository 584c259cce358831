import Dispatch
import Locking
import Testing

/// `PThreadMutex` is what the ThreadSanitizer build locks with; these run it in every build.
@Suite struct PThreadMutexTests {
    /// Counts its own deinitialisation, to see that the mutex lets go of its value.
    final class Tracked: Sendable {
        let onDeinit: @Sendable () -> Void
        init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    enum Refusal: Error, Equatable { case refused }

    @Test("increments from eight threads at once all land")
    func mutualExclusion() {
        let counter = PThreadMutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("withLock returns the body's result and passes its typed error on")
    func resultsAndErrors() {
        let names = PThreadMutex(["a"])
        let count = names.withLock { names -> Int in
            names.append("b")
            return names.count
        }
        #expect(count == 2)
        #expect(throws: Refusal.refused) {
            try names.withLock { (_: inout [String]) throws(Refusal) -> Void in throw .refused }
        }
        // The lock was released when the body threw: taking it again does not deadlock.
        #expect(names.withLock { $0 } == ["a", "b"])
    }

    @Test("the value is released with the mutex")
    func releasesItsValue() {
        let released = PThreadMutex(0)
        do {
            let held = PThreadMutex(Tracked { released.withLock { $0 += 1 } })
            #expect(held.withLock { _ in released.withLock { $0 } } == 0)
        }
        #expect(released.withLock { $0 } == 1)
    }
}
