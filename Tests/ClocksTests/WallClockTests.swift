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

    /// Issue 27: checked moves refuse a time outside years 0001 to 9999, overflow included,
    /// and leave the clock where it was; moves to the ends of the range succeed.
    @Test("checked moves stay in range")
    func checkedMoves() throws {
        let manual = ManualWallClock(now: 1_000)
        #expect(throws: ClockError.self) { try manual.checkedAdvance(by: .max) }
        #expect(throws: ClockError.self) { try manual.checkedSetOffset(.min) }
        #expect(manual.now() == 1_000)
        #expect(try manual.checkedAdvance(by: WallClockRange.latest - 1_000) == WallClockRange.latest)
        #expect(throws: ClockError.self) { try manual.checkedAdvance(by: 1) }
        #expect(try manual.checkedSetOffset(WallClockRange.earliest - 1_000) == WallClockRange.earliest)

        let offset = OffsetWallClock(base: ManualWallClock(now: 5_000))
        for _ in 0..<2 {
            let error = try #require(throws: ClockError.self) { try offset.checkedAdvance(by: 1 << 62) }
            #expect(error.message.contains("years 0001 to 9999"))
        }
        #expect(throws: ClockError.self) { try offset.checkedSetOffset(.max) }
        #expect(offset.offset == 0)
        #expect(try offset.checkedAdvance(by: 60) == 5_060)
        #expect(try offset.checkedSetOffset(-5_000) == 0)
    }

    /// A device clock's checked moves bound the device's time the same way.
    @Test("device clock checked moves stay in range")
    func deviceCheckedMoves() throws {
        let clock = DeviceClock(scheduler: VirtualScheduler(epochSeconds: 1_000_000))
        #expect(throws: ClockError.self) { try clock.checkedAdvance(by: .max) }
        #expect(throws: ClockError.self) { try clock.checkedSetOffset(.min) }
        #expect(clock.skew == 0)
        #expect(try clock.checkedAdvance(by: -120) == 999_880)
        #expect(try clock.checkedSetOffset(600) == 1_000_600)
    }
}
