/// HTTP dates (RFC 9110 §5.6.7): the `Date` header an origin server with a clock sends on
/// every 2xx, 3xx and 4xx answer (§6.6.1), and what a client reads of the server's time.
///
/// Pure: instants are whole seconds since the epoch (as JWT NumericDates count them), in UTC,
/// without Foundation, so that the same instant gives the same text on every platform
/// (``CivilCalendar``).
public enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`: the IMF-fixdate a sender must generate (§5.6.7).
    public static func format(_ seconds: Int64) -> String {
        let (days, secondOfDay) = CivilCalendar.floorDivision(seconds, 86_400)
        let date = CivilCalendar.date(fromDays: days)
        // 1970-01-01 was a Thursday (index 4 with Sunday as 0).
        let weekday = Int(CivilCalendar.floorDivision(days + 4, 7).remainder)
        let hour = secondOfDay / 3600
        let minute = secondOfDay / 60 % 60
        let second = secondOfDay % 60
        let pad = CivilCalendar.padded
        return
            "\(weekdays[weekday]), \(pad(date.day, 2)) \(months[Int(date.month) - 1]) \(pad(date.year, 4)) "
            + "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)) GMT"
    }

    /// Reads an HTTP date in any of the three forms a recipient must accept (§5.6.7):
    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime's (`Sun Nov  6 08:49:37 1994`).
    /// The weekday is not checked against the date. Returns seconds since the epoch, or `nil`
    /// for anything else.
    public static func parse(_ text: String) -> Int64? {
        guard text.utf8.count <= 64 else { return nil }
        let words = text.split(whereSeparator: { $0 == " " }).map(String.init)
        guard let first = words.first, first.count >= 3 else { return nil }
        if first.hasSuffix(",") {
            guard words.count == 6 || words.count == 4, words.last == "GMT" else { return nil }
            if words.count == 6 {
                // IMF-fixdate: weekday, day month year time GMT.
                guard let month = month(words[2]), let year = Int64(words[3]), words[3].count == 4
                else { return nil }
                return instant(year: year, month: month, day: words[1], time: words[4])
            }
            // RFC 850: dd-Mon-yy time GMT, a two-digit year read as the nearest past century
            // (RFC 9110 §5.6.7 leaves the choice to the recipient; 70–99 are 19xx).
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, parts[2].count == 2, let month = month(parts[1]),
                let short = Int64(parts[2])
            else { return nil }
            return instant(
                year: short < 70 ? 2000 + short : 1900 + short, month: month, day: parts[0], time: words[2])
        }
        // asctime: weekday month day time year (the day padded with a space, so split leaves 5).
        guard words.count == 5, let month = month(words[1]), let year = Int64(words[4]), words[4].count == 4
        else { return nil }
        return instant(year: year, month: month, day: words[2], time: words[3])
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The month's number (1–12) from its three-letter name; HTTP dates are case-sensitive
    /// (§5.6.7), so only the exact spelling counts.
    private static func month(_ name: String) -> Int64? {
        months.firstIndex(of: name).map { Int64($0 + 1) }
    }

    private static func instant(year: Int64, month: Int64, day: String, time: String) -> Int64? {
        guard (1...2).contains(day.count), let day = Int64(day), (1...31).contains(day) else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60 + second
    }
}
