import Locking

/// A device's own wall clock: the world's time plus a skew the user (or a bad NTP sync) set.
///
/// What `Date()` returns on an iPhone whose clock is wrong: token `iat`/`exp` checks made by the
/// app judge this time, while the issuer judges the world's (field bug 9, clock skew). Moving
/// this clock with `advance(by:)` or `setOffset(_:)` changes the skew only: the world's time
/// moves only through its `VirtualScheduler`.
public final class DeviceClock: AdjustableWallClock {
    /// The world this device lives in.
    public let scheduler: VirtualScheduler
    private let skewSeconds: Mutex<Int64>

    /// A device clock `skew` seconds ahead of the world (behind when negative).
    public init(scheduler: VirtualScheduler, skew: Int64 = 0) {
        self.scheduler = scheduler
        skewSeconds = Mutex(skew)
    }

    public func now() -> Int64 { scheduler.wallClock.now() + skew }

    /// Seconds this clock is ahead of the world (negative: behind).
    public var skew: Int64 { skewSeconds.withLock { $0 } }

    /// Sets how far ahead of the world this clock is; returns the device's new time.
    @discardableResult
    public func setSkew(_ seconds: Int64) -> Int64 {
        skewSeconds.withLock { $0 = seconds }
        return now()
    }

    /// Moves the device's clock (its skew) by `seconds`; returns the device's new time.
    @discardableResult
    public func advance(by seconds: Int64) -> Int64 {
        skewSeconds.withLock { $0 += seconds }
        return now()
    }

    /// Sets the skew to `seconds` (the origin is the world's time); returns the device's new time.
    @discardableResult
    public func setOffset(_ seconds: Int64) -> Int64 { setSkew(seconds) }

    /// Moves the device's clock (its skew) by `seconds`; refuses a device time out of range.
    @discardableResult
    public func checkedAdvance(by seconds: Int64) throws(ClockError) -> Int64 {
        try skewSeconds.withLock { (skew: inout Int64) throws(ClockError) -> Int64 in
            let world = scheduler.wallClock.now()
            let time = try WallClockRange.time(WallClockRange.time(world, movedBy: skew), movedBy: seconds)
            skew = time - world
            return time
        }
    }

    /// Sets the skew to `seconds`; refuses a device time out of range.
    @discardableResult
    public func checkedSetOffset(_ seconds: Int64) throws(ClockError) -> Int64 {
        try skewSeconds.withLock { (skew: inout Int64) throws(ClockError) -> Int64 in
            let time = try WallClockRange.time(scheduler.wallClock.now(), movedBy: seconds)
            skew = seconds
            return time
        }
    }
}
