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
}
