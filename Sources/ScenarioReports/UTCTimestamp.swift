import HTTPCore

/// Conversions between instants and the calendar forms reports write and read, in UTC, on
/// ``CivilCalendar`` (HTTPCore), which HTTP dates share.
enum UTCTimestamp {
    /// `2024-05-01T12:34:56.789Z`: ISO 8601 with milliseconds, as HAR 1.2 `startedDateTime`
    /// requires.
    static func iso8601(millisecondsSinceEpoch milliseconds: Int64) -> String {
        let (days, millisecondOfDay) = CivilCalendar.floorDivision(milliseconds, 86_400_000)
        let date = CivilCalendar.date(fromDays: days)
        let pad = CivilCalendar.padded
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        let millisecond = millisecondOfDay % 1000
        let yearText = date.year < 0 ? "-" + pad(-date.year, 4) : pad(date.year, 4)
        return "\(yearText)-\(pad(date.month, 2))-\(pad(date.day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
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
        let days = CivilCalendar.days(year: year, month: Int64(month + 1), day: Int64(day))
        return ((days * 24 + clock[0]) * 60 + clock[1]) * 60_000 + clock[2] * 1000
    }

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
}
