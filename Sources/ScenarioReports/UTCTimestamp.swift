/// Conversions between instants and the calendar forms reports write and read, in UTC, without
/// Foundation so that they give the same text on every platform.
///
/// The day arithmetic is Howard Hinnant's `civil_from_days` / `days_from_civil` (proleptic
/// Gregorian calendar), exact for every `Int64` millisecond count a run can produce.
enum UTCTimestamp {
    /// `2024-05-01T12:34:56.789Z`: ISO 8601 with milliseconds, as HAR 1.2 `startedDateTime`
    /// requires.
    static func iso8601(millisecondsSinceEpoch milliseconds: Int64) -> String {
        let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        let millisecond = millisecondOfDay % 1000
        let yearText = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
        return "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
            + "\(pad(second, 2)).\(pad(millisecond, 3))Z"
    }

    /// Reads an HTTP date as cookies carry it in `Expires`: the IMF-fixdate of RFC 9110 §5.6.7
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the dashed Netscape form browsers also accept
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`). Returns milliseconds since the epoch, or nil.
    static func parseHTTPDate(_ text: String) -> Int64? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "," }).map(String.init)
        guard fields.count >= 5 else { return nil }
        // Weekday first (ignored), then day, month, year, time, and an optional "GMT".
        let hasWeekday = Int(fields[0]) == nil
        let rest = Array(fields.dropFirst(hasWeekday ? 1 : 0))
        guard rest.count >= 4, let day = Int(rest[0]), (1...31).contains(day),
            let month = monthNames.firstIndex(of: rest[1].prefix(3).lowercased()),
            var year = Int64(rest[2])
        else { return nil }
        if rest[2].count == 2 { year += year < 70 ? 2000 : 1900 }
        let clock = rest[3].split(separator: ":").compactMap { Int64($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        if rest.count > 4, rest[4] != "GMT", rest[4] != "UTC" { return nil }
        let days = daysFromCivil(year: year, month: Int64(month + 1), day: Int64(day))
        return ((days * 24 + clock[0]) * 60 + clock[1]) * 60_000 + clock[2] * 1000
    }

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
