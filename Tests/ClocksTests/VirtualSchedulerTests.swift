import Clocks
import Locking
import Testing

@Suite("Virtual scheduler")
struct VirtualSchedulerTests {
    /// Appends to a shared list from `@Sendable` work.
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Waits (by yielding) until `count` works or sleepers are queued.
    static func waitForPending(_ scheduler: VirtualScheduler, _ count: Int) async {
        for _ in 0..<100_000 where scheduler.pendingCount < count {
            await Task.yield()
        }
    }

    /// Time stands still until advanced, and advancing moves it exactly.
    @Test func timeMovesOnlyWhenTold() {
        let scheduler = VirtualScheduler(epochSeconds: 1_700_000_000)
        #expect(scheduler.now == .zero)
        scheduler.advance(by: .milliseconds(1_500))
        #expect(scheduler.now == VirtualInstant(milliseconds: 1_500))
        #expect(scheduler.wallClock.now() == 1_700_000_001)
        scheduler.advance(to: VirtualInstant(milliseconds: 60_000))
        #expect(scheduler.wallClock.now() == 1_700_000_060)
    }

    /// Sub-millisecond durations round up so that nothing falls due early.
    @Test func subMillisecondDurationsRoundUp() {
        #expect(VirtualInstant.zero.advanced(by: .microseconds(1)) == VirtualInstant(milliseconds: 1))
        #expect(VirtualInstant.zero.advanced(by: .seconds(2)) == VirtualInstant(milliseconds: 2_000))
        #expect(VirtualInstant.zero.duration(to: VirtualInstant(milliseconds: 250)) == .milliseconds(250))
    }

    /// Due work runs by deadline, then by submission for equal deadlines, seeing its own deadline as now.
    @Test func runsByDeadlineThenSubmission() {
        let scheduler = VirtualScheduler(epochSeconds: 0)
        let journal = Journal()
        for (name, milliseconds) in [("c", 300), ("a1", 100), ("b", 200), ("a2", 100), ("late", 900)] {
            scheduler.schedule(at: VirtualInstant(milliseconds: Int64(milliseconds))) {
                journal.append("\(name)@\(scheduler.now.milliseconds)")
            }
        }
        #expect(scheduler.pendingCount == 5)
        #expect(scheduler.nextDeadline == VirtualInstant(milliseconds: 100))
        let ran = scheduler.advance(to: VirtualInstant(milliseconds: 500))
        #expect(ran == 4)
        #expect(journal.all == ["a1@100", "a2@100", "b@200", "c@300"])
        #expect(scheduler.now == VirtualInstant(milliseconds: 500))
        #expect(scheduler.pendingCount == 1)
        #expect(scheduler.nextDeadline == VirtualInstant(milliseconds: 900))
    }

    /// Work scheduled by running work runs in the same advance when due within it, and not otherwise.
    @Test func workScheduledDuringAdvance() {
        let scheduler = VirtualScheduler(epochSeconds: 0)
        let journal = Journal()
        scheduler.schedule(after: .milliseconds(100)) {
            journal.append("first@\(scheduler.now.milliseconds)")
            scheduler.schedule(after: .zero) { journal.append("immediate@\(scheduler.now.milliseconds)") }
            scheduler.schedule(after: .milliseconds(50)) {
                journal.append("later@\(scheduler.now.milliseconds)")
            }
            scheduler.schedule(after: .seconds(10)) { journal.append("beyond") }
        }
        scheduler.schedule(at: VirtualInstant(milliseconds: 120)) { journal.append("other@120") }
        scheduler.advance(by: .milliseconds(200))
        #expect(journal.all == ["first@100", "immediate@100", "other@120", "later@150"])
        #expect(scheduler.pendingCount == 1)
    }

    /// Cancelled work never runs; cancelling twice, or after it ran, reports false.
    @Test func cancellingWork() {
        let scheduler = VirtualScheduler(epochSeconds: 0)
        let journal = Journal()
        let cancelled = scheduler.schedule(after: .seconds(1)) { journal.append("cancelled") }
        let kept = scheduler.schedule(after: .seconds(1)) { journal.append("kept") }
        #expect(cancelled.cancel())
        #expect(!cancelled.cancel())
        scheduler.advance(by: .seconds(2))
        #expect(journal.all == ["kept"])
        #expect(!kept.cancel())
    }

    /// A sleeper wakes only when an advance reaches its deadline, earliest deadline first.
    @Test func sleepersWakeAtTheirDeadlines() async throws {
        let scheduler = VirtualScheduler(epochSeconds: 0)
        let late = Task { try await scheduler.sleep(for: .seconds(2)) }
        let early = Task { try await scheduler.sleep(until: VirtualInstant(milliseconds: 1_000)) }
        await Self.waitForPending(scheduler, 2)
        #expect(scheduler.pendingCount == 2)
        #expect(scheduler.advance(to: VirtualInstant(milliseconds: 999)) == 0)
        #expect(scheduler.advance(to: VirtualInstant(milliseconds: 1_000)) == 1)
        try await early.value
        #expect(scheduler.pendingCount == 1)
        #expect(scheduler.nextDeadline == VirtualInstant(milliseconds: 2_000))
        scheduler.advance(by: .seconds(5))
        try await late.value
        #expect(scheduler.pendingCount == 0)
    }

    /// A sleep whose deadline has passed returns at once, without waiting for an advance.
    @Test func pastDeadlineReturnsAtOnce() async throws {
        let scheduler = VirtualScheduler(epochSeconds: 0, start: VirtualInstant(milliseconds: 5_000))
        try await scheduler.sleep(until: VirtualInstant(milliseconds: 4_000))
        #expect(scheduler.pendingCount == 0)
    }

    /// Cancelling a sleeping task throws CancellationError and removes the sleeper.
    @Test func cancellingASleeper() async {
        let scheduler = VirtualScheduler(epochSeconds: 0)
        let sleeper = Task { try await scheduler.sleep(for: .seconds(60)) }
        await Self.waitForPending(scheduler, 1)
        #expect(scheduler.pendingCount == 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(scheduler.pendingCount == 0)
    }

    /// A task cancelled before it sleeps throws at once and leaves nothing queued.
    @Test func alreadyCancelledTaskDoesNotSleep() async {
        let scheduler = VirtualScheduler(epochSeconds: 0)
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await scheduler.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(scheduler.pendingCount == 0)
    }

    /// Code written against Swift's `Clock` runs on virtual time.
    @Test func worksAsASwiftClock() async throws {
        let scheduler = VirtualScheduler(epochSeconds: 0)
        func waitOn<C: Clock>(_ clock: C, _ duration: C.Duration) async throws {
            try await clock.sleep(for: duration)
        }
        let task = Task { try await waitOn(scheduler, .seconds(3)) }
        await Self.waitForPending(scheduler, 1)
        #expect(scheduler.nextDeadline == VirtualInstant(milliseconds: 3_000))
        scheduler.advance(by: .seconds(3))
        try await task.value
    }
}
