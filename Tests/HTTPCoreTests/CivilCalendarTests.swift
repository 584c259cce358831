import HTTPCore
import Testing

/// The one calendar HTTP dates and the reports' timestamps share.
@Suite struct CivilCalendarTests {
    @Test(
        "known dates",
        arguments: [
            (Int64(0), CivilCalendar.Date(year: 1970, month: 1, day: 1)),
            (Int64(-1), CivilCalendar.Date(year: 1969, month: 12, day: 31)),
            (Int64(11_017), CivilCalendar.Date(year: 2000, month: 3, day: 1)),
            (Int64(11_016), CivilCalendar.Date(year: 2000, month: 2, day: 29)),
            (Int64(-719_468), CivilCalendar.Date(year: 0, month: 3, day: 1)),
            // Centuries are leap years only when divisible by 400: 2100 and 1900 have no
            // February 29th, 2400 has one.
            (Int64(47_540), CivilCalendar.Date(year: 2100, month: 2, day: 28)),
            (Int64(47_541), CivilCalendar.Date(year: 2100, month: 3, day: 1)),
            (Int64(-25_508), CivilCalendar.Date(year: 1900, month: 3, day: 1)),
            (Int64(157_113), CivilCalendar.Date(year: 2400, month: 2, day: 29)),
        ] as [(Int64, CivilCalendar.Date)])
    func knownDates(days: Int64, date: CivilCalendar.Date) {
        #expect(CivilCalendar.date(fromDays: days) == date)
        #expect(CivilCalendar.days(year: date.year, month: date.month, day: date.day) == days)
    }

    /// Every day of four centuries each side of the epoch goes there and back.
    @Test func roundTrip() {
        for days in stride(from: Int64(-146_097 * 2), through: 146_097 * 2, by: 1) {
            let date = CivilCalendar.date(fromDays: days)
            guard CivilCalendar.days(year: date.year, month: date.month, day: date.day) == days else {
                Issue.record("day \(days) came back otherwise from \(date)")
                return
            }
        }
    }

    @Test func floorDivisionRoundsDown() {
        #expect(CivilCalendar.floorDivision(-1, 86_400) == (-1, 86_399))
        #expect(CivilCalendar.floorDivision(86_400, 86_400) == (1, 0))
        #expect(CivilCalendar.padded(7, 3) == "007")
    }
}
