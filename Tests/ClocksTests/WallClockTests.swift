import Clocks
import Testing

@Suite("Wall clocks")
struct WallClockTests {
    /// A manual clock stands still until advanced, and an offset is measured from its origin.
    @Test("manual clock moves only when told")
    func manual() {
        let clock = ManualWallClock(now: 1_000)
        #expect(clock.now() == 1_000)
        #expect(clock.advance(by: 30) == 1_030)
        #expect(clock.now() == 1_030)
        #expect(clock.setOffset(-10) == 990)
    }

    /// An offset clock adds its offset to the base clock's time.
    @Test("offset clock follows its base plus the offset")
    func offset() {
        let base = ManualWallClock(now: 5_000)
        let clock = OffsetWallClock(base: base, offset: 100)
        #expect(clock.now() == 5_100)
        base.advance(by: 1)
        #expect(clock.now() == 5_101)
        #expect(clock.advance(by: 60) == 5_161)
        #expect(clock.setOffset(0) == 5_001)
        #expect(clock.offset == 0)
    }
}
