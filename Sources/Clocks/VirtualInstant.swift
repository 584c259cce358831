/// A moment in a simulated world: whole milliseconds since the world's epoch.
///
/// Conforms to `InstantProtocol` so that code written against Swift's `Clock` (Hummingbird's
/// `MemoryPersistDriver<C: Clock>`, `Task.sleep(until:clock:)`) runs on virtual time. The world's
/// resolution is one millisecond; a `Duration` with a sub-millisecond part is rounded up, so that
/// a sleep never ends before the time it asked for.
public struct VirtualInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds since the world's epoch.
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The world's epoch itself.
    public static let zero = VirtualInstant(milliseconds: 0)

    public func advanced(by duration: Duration) -> VirtualInstant {
        VirtualInstant(milliseconds: milliseconds + Self.milliseconds(roundingUp: duration))
    }

    public func duration(to other: VirtualInstant) -> Duration {
        .milliseconds(other.milliseconds - milliseconds)
    }

    public static func < (lhs: VirtualInstant, rhs: VirtualInstant) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    public var description: String { "t+\(milliseconds)ms" }

    /// Whole milliseconds in `duration`, any remainder counted as one more millisecond.
    static func milliseconds(roundingUp duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        var whole = seconds * 1_000 + attoseconds / attosecondsPerMillisecond
        if attoseconds % attosecondsPerMillisecond > 0 { whole += 1 }
        return whole
    }
}
