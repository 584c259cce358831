public import Clocks

/// The world's wall clock, as the issuer and Apple see it: moving it moves the whole world
/// (the issuer's `POST /_admin/clock` advances the scheduler, so devices age with it).
public struct WorldClock: AdjustableWallClock {
    public let scheduler: VirtualScheduler

    public init(scheduler: VirtualScheduler) { self.scheduler = scheduler }

    public func now() -> Int64 { scheduler.wallClock.now() }

    @discardableResult
    public func advance(by seconds: Int64) -> Int64 {
        if seconds > 0 { _ = scheduler.advance(by: .seconds(seconds)) }
        return now()
    }

    /// World time only moves forward: an offset behind the present leaves it where it is.
    @discardableResult
    public func setOffset(_ seconds: Int64) -> Int64 {
        let target = scheduler.epochSeconds + seconds
        return advance(by: target - now())
    }

    /// Moves the world forward by `seconds` (a negative amount leaves it where it is);
    /// refuses a time out of range.
    @discardableResult
    public func checkedAdvance(by seconds: Int64) throws(ClockError) -> Int64 {
        let current = now()
        let target = try WallClockRange.time(current, movedBy: seconds)
        // Both in range: the move is shorter than `WallClockRange.longestMove`, whose
        // milliseconds fit the scheduler's instants.
        if target > current { _ = scheduler.advance(by: .seconds(target - current)) }
        return now()
    }

    /// Moves the world to its epoch plus `seconds` when that is ahead of it; refuses a time
    /// out of range.
    @discardableResult
    public func checkedSetOffset(_ seconds: Int64) throws(ClockError) -> Int64 {
        let target = try WallClockRange.time(scheduler.epochSeconds, movedBy: seconds)
        let current = now()
        guard target > current else { return current }
        let (distance, overflow) = target.subtractingReportingOverflow(current)
        guard !overflow else { throw ClockError("the world's time \(current) is out of range") }
        return try checkedAdvance(by: distance)
    }
}
