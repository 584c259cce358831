/// A handle on work registered with a `VirtualScheduler`, to cancel it before it runs, as
/// swift-nio's `Scheduled<T>.cancel()` does for an event loop's scheduled tasks.
public struct ScheduledWork: Sendable {
    private let scheduler: VirtualScheduler
    let id: UInt64
    /// When the work falls due.
    public let deadline: VirtualInstant

    init(scheduler: VirtualScheduler, id: UInt64, deadline: VirtualInstant) {
        self.scheduler = scheduler
        self.id = id
        self.deadline = deadline
    }

    /// Removes the work; `false` when it already ran or was cancelled.
    @discardableResult
    public func cancel() -> Bool { scheduler.cancel(id: id) }
}
