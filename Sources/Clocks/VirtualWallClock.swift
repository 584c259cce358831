/// A `VirtualScheduler`'s time in whole Unix seconds, for code that judges JWT NumericDates
/// (RFC 7519 §2) and must see the world's time, not the machine's.
public struct VirtualWallClock: WallClock {
    public let scheduler: VirtualScheduler

    public init(scheduler: VirtualScheduler) {
        self.scheduler = scheduler
    }

    public func now() -> Int64 { scheduler.unixSeconds(at: scheduler.now) }
}
