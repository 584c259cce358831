import Locking

/// The time of one simulated world: it moves only when a test or a runner says so.
///
/// Modelled on swift-nio's `EmbeddedEventLoop.advanceTime(by:)`: work registered with
/// `schedule(at:_:)` and tasks suspended in `sleep(until:)` wait in one queue, and `advance(to:)`
/// runs what falls due in deadline order, then in submission order for equal deadlines, with `now`
/// set to each entry's deadline while it runs. Work that schedules more work already due runs
/// within the same advance. Sleeping tasks are resumed in that same order; each then continues
/// on its own executor, so an advance returns once they are resumed, not once they have run.
///
/// One driver moves time: advancing from two threads at once, or from inside scheduled work,
/// is a programming error and traps.
public final class VirtualScheduler: Clock, Sendable {
    public typealias Instant = VirtualInstant
    public typealias Duration = Swift.Duration

    private enum Job {
        case work(@Sendable () -> Void)
        case sleeper(CheckedContinuation<Void, any Error>)
    }

    private struct Entry {
        var id: UInt64
        var deadline: VirtualInstant
        var job: Job
    }

    private struct State {
        var now: VirtualInstant
        var nextID: UInt64 = 0
        /// Sorted by deadline, then by id (submission order).
        var queue: [Entry] = []
        var isAdvancing = false

        mutating func enqueue(deadline: VirtualInstant, job: Job) -> UInt64 {
            let id = nextID
            nextID += 1
            insert(Entry(id: id, deadline: deadline, job: job))
            return id
        }

        mutating func insert(_ entry: Entry) {
            // Ids only grow, so a new entry goes after every entry due at or before its deadline.
            var low = 0
            var high = queue.count
            while low < high {
                let middle = (low + high) / 2
                if queue[middle].deadline <= entry.deadline { low = middle + 1 } else { high = middle }
            }
            queue.insert(entry, at: low)
        }

        mutating func remove(id: UInt64) -> Entry? {
            guard let index = queue.firstIndex(where: { $0.id == id }) else { return nil }
            return queue.remove(at: index)
        }
    }

    /// The world's epoch as a Unix time in seconds: what `VirtualInstant.zero` is on a calendar.
    public let epochSeconds: Int64
    private let state: Mutex<State>

    /// A world whose time starts at `epochSeconds` (Unix time) plus `start`.
    public init(epochSeconds: Int64, start: VirtualInstant = .zero) {
        self.epochSeconds = epochSeconds
        state = Mutex(State(now: start))
    }

    public var now: VirtualInstant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .milliseconds(1) }

    /// How many works and sleepers wait for time to move.
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// The deadline of the first work or sleeper to fall due, or `nil` when nothing waits.
    public var nextDeadline: VirtualInstant? { state.withLock { $0.queue.first?.deadline } }

    /// The Unix time in whole seconds (rounded down) at `instant`.
    public func unixSeconds(at instant: VirtualInstant) -> Int64 {
        epochSeconds + Self.floorDivide(instant.milliseconds, by: 1_000)
    }

    /// The world's time in seconds, as a `WallClock` for code that judges JWT NumericDates.
    public var wallClock: VirtualWallClock { VirtualWallClock(scheduler: self) }

    // MARK: Scheduling

    /// Registers `work` to run when an advance reaches `deadline` (at once on the next advance
    /// when the deadline has passed).
    @discardableResult
    public func schedule(at deadline: VirtualInstant, _ work: @escaping @Sendable () -> Void)
        -> ScheduledWork
    {
        let id = state.withLock { $0.enqueue(deadline: deadline, job: .work(work)) }
        return ScheduledWork(scheduler: self, id: id, deadline: deadline)
    }

    /// Registers `work` to run `delay` after now.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let (id, deadline) = state.withLock { state in
            let deadline = state.now.advanced(by: delay)
            return (state.enqueue(deadline: deadline, job: .work(work)), deadline)
        }
        return ScheduledWork(scheduler: self, id: id, deadline: deadline)
    }

    /// Removes scheduled work that has not run yet; `false` when it already ran or was cancelled.
    @discardableResult
    func cancel(id: UInt64) -> Bool {
        state.withLock { state in
            guard let index = state.queue.firstIndex(where: { $0.id == id }),
                case .work = state.queue[index].job
            else { return false }
            state.queue.remove(at: index)
            return true
        }
    }

    // MARK: Moving time

    /// Moves time forward by `duration`, running everything that falls due on the way.
    /// - Returns: how many works ran and sleepers were resumed.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        precondition(duration >= .zero, "virtual time cannot move backwards (advance by \(duration))")
        return advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `target`, running everything due at or before it.
    /// - Returns: how many works ran and sleepers were resumed.
    @discardableResult
    public func advance(to target: VirtualInstant) -> Int {
        state.withLock { state in
            precondition(!state.isAdvancing, "VirtualScheduler: advance called during another advance")
            precondition(target >= state.now, "virtual time cannot move backwards (\(state.now) → \(target))")
            state.isAdvancing = true
        }
        var count = 0
        while true {
            let due: Entry? = state.withLock { state in
                guard let first = state.queue.first, first.deadline <= target else {
                    state.now = target
                    state.isAdvancing = false
                    return nil
                }
                state.queue.removeFirst()
                state.now = max(state.now, first.deadline)
                return first
            }
            guard let due else { return count }
            count += 1
            switch due.job {
            case .work(let work): work()
            case .sleeper(let continuation): continuation.resume()
            }
        }
    }

    // MARK: Sleeping

    /// Suspends until an advance reaches `deadline`; returns at once when it has passed.
    /// - Throws: `CancellationError` when the task is cancelled before the deadline.
    public func sleep(until deadline: VirtualInstant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            guard deadline > state.now else { return nil }
            let id = state.nextID
            state.nextID += 1
            return id
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                enum Registration { case cancelled, alreadyDue, waiting }
                let registration = state.withLock { state -> Registration in
                    // Checked under the lock that the cancellation handler takes too: either the
                    // handler finds the entry, or this sees the cancellation. Never neither.
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .alreadyDue }
                    state.insert(Entry(id: id, deadline: deadline, job: .sleeper(continuation)))
                    return .waiting
                }
                switch registration {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .alreadyDue: continuation.resume()
                case .waiting: break
                }
            }
        } onCancel: {
            let entry = state.withLock { $0.remove(id: id) }
            if case .sleeper(let continuation) = entry?.job {
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    // `sleep(for:tolerance:)` comes from `Clock`: it sleeps until `now` plus the duration.

    static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor < 0) ? quotient - 1 : quotient
    }
}
