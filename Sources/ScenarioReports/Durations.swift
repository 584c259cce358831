import JSON

/// How reports write durations: milliseconds to the microsecond (finer digits are noise of
/// the clock, and they make diffs of two reports unreadable), seconds as JUnit wants them.
enum Durations {
    /// Milliseconds rounded to three decimals, as a JSON number.
    static func milliseconds(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        return .double((value * 1000).rounded() / 1000)
    }

    /// Seconds with exactly three decimals (`1.234`), from milliseconds: the `time` attribute of
    /// JUnit XML, which readers parse as a decimal number of seconds.
    static func seconds(fromMilliseconds value: Double) -> String {
        guard value.isFinite, value > 0 else { return "0.000" }
        let thousandths = Int64(min(value.rounded(), Double(Int64.max / 2)))
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
