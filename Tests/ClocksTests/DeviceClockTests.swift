import Clocks
import Testing

@Suite("Device clock")
struct DeviceClockTests {
    /// The device's time is the world's plus its skew, and follows the world as it moves.
    @Test func followsTheWorldPlusSkew() {
        let scheduler = VirtualScheduler(epochSeconds: 1_000_000)
        let clock = DeviceClock(scheduler: scheduler, skew: 300)
        #expect(clock.now() == 1_000_300)
        scheduler.advance(by: .seconds(10))
        #expect(clock.now() == 1_000_310)
        #expect(scheduler.wallClock.now() == 1_000_010)
    }

    /// Moving the device's clock changes only its skew, never the world's time.
    @Test func adjustingMovesOnlyTheSkew() {
        let scheduler = VirtualScheduler(epochSeconds: 1_000_000)
        let clock = DeviceClock(scheduler: scheduler)
        #expect(clock.advance(by: -120) == 999_880)
        #expect(clock.skew == -120)
        #expect(clock.setSkew(600) == 1_000_600)
        #expect(clock.setOffset(0) == 1_000_000)
        #expect(scheduler.now == .zero)
    }

    /// The device clock is usable wherever an adjustable wall clock is expected.
    @Test func isAnAdjustableWallClock() {
        let clock: any AdjustableWallClock = DeviceClock(
            scheduler: VirtualScheduler(epochSeconds: 50), skew: -50)
        #expect(clock.now() == 0)
    }
}
