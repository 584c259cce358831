/// Wakes the tasks that wait for a condition other threads change, so that they need not poll:
/// whoever changes what a condition reads calls `notify()`, and `wait(until:deadline:)` checks
/// the condition again after each notification, up to a deadline in real time.
///
/// A notification between a waiter's check and its going to sleep is not lost: each waiter
/// sleeps only if no notification came since the check (a generation count), and a waiter
/// whose task is cancelled wakes at once.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they went to sleep.
        var cancelled: Set<UInt64> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Something a condition may read has changed: every waiter checks again.
    public func notify() {
        let woken = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Waits until `condition` holds, and returns true; or returns false once `deadline` has
    /// passed or the task is cancelled without it holding.
    public func wait(until condition: () -> Bool, deadline: ContinuousClock.Instant) async -> Bool {
        while true {
            let generation = state.withLock { $0.generation }
            if condition() { return true }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                self?.notify()
            }
            await sleep(unlessNotifiedSince: generation)
            timer.cancel()
        }
    }

    private func sleep(unlessNotifiedSince generation: UInt64) async {
        let id = state.withLock { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let sleeps = state.withLock { state in
                    guard state.generation == generation, state.cancelled.remove(id) == nil else {
                        return false
                    }
                    state.waiters[id] = continuation
                    return true
                }
                if !sleeps { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil as CheckedContinuation<Void, Never>?
                }
                return waiter
            }
            waiter?.resume()
        }
        // A cancellation that came after the waiter had woken leaves nothing behind.
        _ = state.withLock { $0.cancelled.remove(id) }
    }
}
