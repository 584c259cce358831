import Locking
import Testing

/// Waiting for a condition without polling: woken by a notification, bounded by a deadline,
/// ended by cancellation.
@Suite struct ChangeSignalTests {
    final class Flag: Sendable {
        let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
    }

    final class Counter: Sendable {
        let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
    }

    @Test func aConditionThatHoldsReturnsAtOnce() async {
        let signal = ChangeSignal()
        #expect(await signal.wait(until: { true }, deadline: .now + .seconds(5)))
    }

    @Test func aNotificationWakesTheWaiter() async {
        let signal = ChangeSignal()
        let flag = Flag()
        let started = ContinuousClock.now
        let setter = Task {
            try? await Task.sleep(for: .milliseconds(50))
            flag.value.withLock { $0 = true }
            signal.notify()
        }
        // The deadline is far off, so that a machine busy enough to hold the setter back for
        // many seconds (a full suite with WebKit beside it on two cores) still tells the two apart.
        #expect(await signal.wait(until: { flag.isSet }, deadline: .now + .seconds(600)))
        await setter.value
        #expect(ContinuousClock.now - started < .seconds(300), "woken by the notification, not the deadline")
    }

    @Test func theDeadlineEndsTheWait() async {
        let signal = ChangeSignal()
        #expect(!(await signal.wait(until: { false }, deadline: .now + .milliseconds(50))))
    }

    @Test func cancellationEndsTheWait() async {
        let signal = ChangeSignal()
        let waiter = Task { await signal.wait(until: { false }, deadline: .now + .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        #expect(!(await waiter.value))
    }

    @Test func manyWaitersAndNotifiersLoseNoWakeUp() async {
        let signal = ChangeSignal()
        let counter = Counter()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await signal.wait(until: { counter.count >= 200 }, deadline: .now + .seconds(30))
                }
            }
            for _ in 0..<200 {
                group.addTask {
                    counter.value.withLock { $0 += 1 }
                    signal.notify()
                    return true
                }
            }
            for await held in group { #expect(held) }
        }
    }
}
