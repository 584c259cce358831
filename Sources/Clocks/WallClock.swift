import Foundation
import Synchronization

/// Wall-clock time in whole seconds since the epoch, as JWT NumericDates count it.
///
/// Every component that judges time (token expiry, code lifetime, DPoP `iat`) takes one of
/// these instead of reading the system clock, so that a simulated world's time moves only when
/// its scenario says so, and the issuer's `/_admin/clock` can move it when served.
public protocol WallClock: Sendable {
    func now() -> Int64
}

/// A clock that tests and the admin API can move.
public protocol AdjustableWallClock: WallClock {
    /// Moves time by `seconds` and returns the new time.
    @discardableResult func advance(by seconds: Int64) -> Int64
    /// Sets time to its origin plus `seconds` and returns the new time.
    @discardableResult func setOffset(_ seconds: Int64) -> Int64
}

/// The machine's clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}

/// A clock that stands still until told to move.
public final class ManualWallClock: AdjustableWallClock {
    private let current: Mutex<Int64>
    private let origin: Int64

    public init(now: Int64) {
        current = Mutex(now)
        origin = now
    }

    public func now() -> Int64 { current.withLock { $0 } }

    /// Moves time forward (or back, with a negative amount) and returns the new time.
    @discardableResult
    public func advance(by seconds: Int64) -> Int64 {
        current.withLock { value in
            value += seconds
            return value
        }
    }

    public func set(_ now: Int64) { current.withLock { $0 = now } }

    @discardableResult
    public func setOffset(_ seconds: Int64) -> Int64 {
        current.withLock { value in
            value = origin + seconds
            return value
        }
    }
}

/// Another clock plus an adjustable offset: what `signinsim serve` runs on, so that
/// `/_admin/clock` can move time for the issuer and everything it serves at once.
public final class OffsetWallClock: AdjustableWallClock {
    private let base: any WallClock
    private let offsetSeconds: Mutex<Int64>

    public init(base: any WallClock = SystemWallClock(), offset: Int64 = 0) {
        self.base = base
        offsetSeconds = Mutex(offset)
    }

    public func now() -> Int64 { base.now() + offset }

    public var offset: Int64 { offsetSeconds.withLock { $0 } }

    /// Adds to the offset and returns the new time.
    @discardableResult
    public func advance(by seconds: Int64) -> Int64 {
        offsetSeconds.withLock { $0 += seconds }
        return now()
    }

    /// Replaces the offset and returns the new time.
    @discardableResult
    public func setOffset(_ seconds: Int64) -> Int64 {
        offsetSeconds.withLock { $0 = seconds }
        return now()
    }
}
