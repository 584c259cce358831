/// Days since the Unix epoch and the dates of the proleptic Gregorian calendar, in UTC, without
/// Foundation, so that an instant gives the same text on every platform: the one calendar that
/// HTTP dates (RFC 9110 §5.6.7), cookie expiry dates and the reports' ISO 8601 timestamps share.
///
/// The day arithmetic is Howard Hinnant's `civil_from_days` / `days_from_civil`, exact for every
/// `Int64` day count a run can produce.
public enum CivilCalendar {
    /// A date: the year (astronomical numbering), the month (1–12) and the day (1–31).
    public struct Date: Hashable, Sendable {
        public var year: Int64
        public var month: Int64
        public var day: Int64

        public init(year: Int64, month: Int64, day: Int64) {
            self.year = year
            self.month = month
            self.day = day
        }
    }

    /// The date `days` days after 1970-01-01.
    public static func date(fromDays days: Int64) -> Date {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return Date(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// The days from 1970-01-01 to `year`-`month`-`day` (negative before it).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Division rounding toward negative infinity, with a remainder in `0..<divisor`: splits an
    /// instant before the epoch into a day and a time of day.
    public static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64)
    {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
