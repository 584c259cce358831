public import Scenario

/// Formats a run for people at a terminal: one line per scenario, the failing step with where
/// it is written and what was expected, a progress line and a closing summary.
///
/// It only formats; the caller decides where text goes, so the same reporter serves a terminal,
/// a CI log and a test.
public struct ConsoleReporter: Sendable {
    /// Whether to colour with ANSI SGR sequences (ECMA-48 §8.3.117).
    public var useColor: Bool
    /// Whether output is a terminal, where a progress line can overwrite itself.
    public var isTerminal: Bool
    /// Whether lines show durations (off for output compared byte for byte).
    public var includeTimings: Bool

    /// - Parameter isTerminal: nil when it goes with colour (a terminal that must stay plain,
    ///   with `NO_COLOR`, can still have its progress line rewritten: pass true).
    public init(useColor: Bool, isTerminal: Bool? = nil, includeTimings: Bool = true) {
        self.useColor = useColor
        self.isTerminal = isTerminal ?? useColor
        self.includeTimings = includeTimings
    }

    /// A reporter for the given output, colouring as `shouldUseColor` decides.
    public init(isTerminal: Bool, environment: [String: String], includeTimings: Bool = true) {
        self.init(
            useColor: Self.shouldUseColor(isTerminal: isTerminal, environment: environment),
            isTerminal: isTerminal,
            includeTimings: includeTimings)
    }

    /// Colour only on a terminal, never when `NO_COLOR` is set (https://no-color.org), never
    /// when `TERM` is `dumb` (a terminal that understands no escapes, such as Emacs' shell).
    ///
    /// no-color.org asks tools to ignore an empty `NO_COLOR`; an empty one still turns colour
    /// off here, because someone set it, and plain text is never wrong.
    public static func shouldUseColor(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal, environment["NO_COLOR"] == nil else { return false }
        return environment["TERM"] != "dumb"
    }

    /// One scenario: `✓ name (file) 123 ms`, or `✗ name (file)` followed by the failing step,
    /// its location and message, and what was expected and what happened, indented.
    public func line(for result: ScenarioResult) -> String {
        let subject = "\(result.name) \(paint("(\(result.file))", .dim))"
        let duration =
            includeTimings ? " " + paint(Self.formatMilliseconds(result.durationMilliseconds), .dim) : ""
        switch result.status {
        case .passed:
            return "\(paint("✓", .green)) \(subject)\(duration)"
        case .failed:
            var lines = ["\(paint("✗", .red)) \(subject)\(duration)"]
            if let failure = result.failure { lines += details(failure) }
            return lines.joined(separator: "\n")
        case .skipped:
            let reason = result.failure.map { ": \($0.message)" } ?? ""
            return "\(paint("-", .yellow)) \(subject) \(paint("skipped\(reason)", .yellow))"
        case .interrupted:
            var lines = ["\(paint("!", .magenta)) \(subject) \(paint("interrupted", .magenta))"]
            if let failure = result.failure { lines += details(failure) }
            return lines.joined(separator: "\n")
        }
    }

    /// The closing line: `12 passed, 1 failed, 2 skipped in 3.4 s`, with interrupted scenarios
    /// counted when there are any, `(seed 7)` when the run was seeded with `--seed`, and
    /// `(interrupted)` when the run was stopped.
    public func summary(_ summary: RunSummary) -> String {
        let failed = summary.count(.failed)
        var parts = [
            paint("\(summary.count(.passed)) passed", .green),
            failed > 0 ? paint("\(failed) failed", .red) : "0 failed",
            "\(summary.count(.skipped)) skipped",
        ]
        let interruptedCount = summary.count(.interrupted)
        if interruptedCount > 0 { parts.append(paint("\(interruptedCount) interrupted", .magenta)) }
        var text = parts.joined(separator: ", ")
        if includeTimings { text += " in " + Self.formatSeconds(summary.durationMilliseconds) }
        if let seed = summary.seed { text += " " + paint("(seed \(seed))", .dim) }
        if summary.interrupted { text += " " + paint("(interrupted)", .magenta) }
        return text
    }

    /// A progress line, `12/40 scenarios, 1 failed`. On a terminal it starts with a carriage
    /// return and erase-line (ECMA-48 EL, `CSI 2 K`) so that each one replaces the last.
    public func progress(done: Int, total: Int, failed: Int) -> String {
        let failures = failed > 0 ? ", " + paint("\(failed) failed", .red) : ""
        let text = "\(done)/\(total) scenarios\(failures)"
        return isTerminal ? "\r\u{1B}[2K" + text : text
    }

    private func details(_ failure: StepFailure) -> [String] {
        var lines = [
            "    " + paint("step \(failure.step) at \(failure.location): \(failure.message)", .red)
        ]
        if let expected = failure.expected { lines.append("    expected: " + indentContinuation(expected)) }
        if let actual = failure.actual { lines.append("    actual: " + indentContinuation(actual)) }
        return lines
    }

    /// Keeps a multi-line value under its label.
    private func indentContinuation(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n      ")
    }

    /// SGR parameters (ECMA-48 §8.3.117).
    private enum Style: String {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case magenta = "35"
        case dim = "2"
    }

    private func paint(_ text: String, _ style: Style) -> String {
        useColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// `123 ms` below a second, `4.5 s` from one.
    static func formatMilliseconds(_ milliseconds: Double) -> String {
        guard milliseconds.isFinite, milliseconds >= 0 else { return "0 ms" }
        return milliseconds < 999.5 ? "\(Int(milliseconds.rounded())) ms" : formatSeconds(milliseconds)
    }

    /// Seconds with one decimal: `3.4 s`.
    static func formatSeconds(_ milliseconds: Double) -> String {
        guard milliseconds.isFinite, milliseconds >= 0 else { return "0.0 s" }
        let tenths = Int64(min((milliseconds / 100).rounded(), 1e15))
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
