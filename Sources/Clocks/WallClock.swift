import Foundation
import Locking

/// Wall-clock time in whole seconds since the epoch, as JWT NumericDates count it.
///
/// Every component that judges time (token expiry, code lifetime, DPoP `iat`) takes one of
/// these instead of reading the system clock, so that a simulated world's time moves only when
/// its scenario says so, and the issuer's `/_admin/clock` can move it when served.
public protocol WallClock: Sendable {
    func now() -> Int64
}

/// A clock that tests and the admin API can move.
///
/// `advance(by:)` and `setOffset(_:)` are for amounts a program chose; an amount that comes
/// from outside (the admin API, a scenario file, a command line) goes through
/// `checkedAdvance(by:)` or `checkedSetOffset(_:)`, which refuse a move that would leave
/// `WallClockRange.times` instead of overflowing.
public protocol AdjustableWallClock: WallClock {
    /// Moves time by `seconds` and returns the new time.
    @discardableResult func advance(by seconds: Int64) -> Int64
    /// Sets time to its origin plus `seconds` and returns the new time.
    @discardableResult func setOffset(_ seconds: Int64) -> Int64
    /// Moves time by `seconds` and returns the new time.
    /// - Throws: `ClockError`, leaving the clock where it was, when the new time would fall
    ///   outside `WallClockRange.times`.
    @discardableResult func checkedAdvance(by seconds: Int64) throws(ClockError) -> Int64
    /// Sets time to its origin plus `seconds` and returns the new time.
    /// - Throws: `ClockError`, leaving the clock where it was, when the new time would fall
    ///   outside `WallClockRange.times`.
    @discardableResult func checkedSetOffset(_ seconds: Int64) throws(ClockError) -> Int64
}

/// The times a clock moved from outside may show, in seconds since the epoch: from
/// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, the years a four-digit `date-fullyear` can
/// write (RFC 3339 §5.6). The range is far inside `Int64`, so a time in it plus a leeway, a
/// lifetime or a skew no longer than the range itself cannot overflow.
public enum WallClockRange {
    /// 0001-01-01T00:00:00Z.
    public static let earliest: Int64 = -62_135_596_800
    /// 9999-12-31T23:59:59Z.
    public static let latest: Int64 = 253_402_300_799
    public static var times: ClosedRange<Int64> { earliest...latest }
    /// The longest move that can end in range: from `earliest` to `latest`.
    public static var longestMove: Int64 { latest - earliest }

    /// `time` moved by `seconds`.
    /// - Throws: `ClockError` when the result overflows or falls outside `times`.
    public static func time(_ time: Int64, movedBy seconds: Int64) throws(ClockError) -> Int64 {
        let (moved, overflow) = time.addingReportingOverflow(seconds)
        guard !overflow, times.contains(moved) else {
            throw ClockError(
                "moving the clock by \(seconds) s from \(time) would leave the representable times "
                    + "\(earliest) to \(latest) (years 0001 to 9999)")
        }
        return moved
    }
}

/// A clock move refused because the time it would reach is out of range.
public struct ClockError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
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

    @discardableResult
    public func checkedAdvance(by seconds: Int64) throws(ClockError) -> Int64 {
        try current.withLock { (value: inout Int64) throws(ClockError) -> Int64 in
            value = try WallClockRange.time(value, movedBy: seconds)
            return value
        }
    }

    @discardableResult
    public func checkedSetOffset(_ seconds: Int64) throws(ClockError) -> Int64 {
        let target = try WallClockRange.time(origin, movedBy: seconds)
        current.withLock { $0 = target }
        return target
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

    /// Adds to the offset and returns the new time; refuses a time out of range, so that two
    /// large advances in a row cannot overflow the offset.
    @discardableResult
    public func checkedAdvance(by seconds: Int64) throws(ClockError) -> Int64 {
        try offsetSeconds.withLock { (offset: inout Int64) throws(ClockError) -> Int64 in
            let baseTime = base.now()
            let time = try WallClockRange.time(
                WallClockRange.time(baseTime, movedBy: offset), movedBy: seconds)
            // Both in range, so the difference cannot overflow.
            offset = time - baseTime
            return time
        }
    }

    /// Replaces the offset and returns the new time; refuses a time out of range.
    @discardableResult
    public func checkedSetOffset(_ seconds: Int64) throws(ClockError) -> Int64 {
        try offsetSeconds.withLock { (offset: inout Int64) throws(ClockError) -> Int64 in
            let time = try WallClockRange.time(base.now(), movedBy: seconds)
            offset = seconds
            return time
        }
    }
}
