import Scenario
import ScenarioReports
import Testing

@Suite("Console reporter")
struct ConsoleReporterTests {
    private let plain = ConsoleReporter(useColor: false)
    private let coloured = ConsoleReporter(useColor: true)

    /// Colour needs a terminal, and NO_COLOR (whatever its value) or TERM=dumb turns it off.
    @Test(
        "decides when to colour",
        arguments: [
            (true, ["TERM": "xterm-256color"], true),
            (true, [:], true),
            (false, ["TERM": "xterm-256color"], false),
            (true, ["NO_COLOR": "1", "TERM": "xterm-256color"], false),
            (true, ["NO_COLOR": "", "TERM": "xterm-256color"], false),
            (true, ["TERM": "dumb"], false),
        ] as [(Bool, [String: String], Bool)])
    func colourDecision(isTerminal: Bool, environment: [String: String], expected: Bool) {
        #expect(ConsoleReporter.shouldUseColor(isTerminal: isTerminal, environment: environment) == expected)
        let reporter = ConsoleReporter(isTerminal: isTerminal, environment: environment)
        #expect(reporter.useColor == expected)
        #expect(reporter.line(for: Fixtures.summary.results[0]).contains("\u{1B}[") == expected)
    }

    /// A passing scenario is one line with its file and duration.
    @Test("passed line")
    func passed() {
        #expect(
            plain.line(for: Fixtures.summary.results[0])
                == "✓ signs in with a password (scenarios/sign-in/basic.yaml) 123 ms")
        #expect(
            ConsoleReporter(useColor: false, includeTimings: false).line(for: Fixtures.summary.results[0])
                == "✓ signs in with a password (scenarios/sign-in/basic.yaml)")
    }

    /// A failure names the step, where it is written, and both sides of the expectation.
    @Test("failed lines")
    func failed() {
        #expect(
            plain.line(for: Fixtures.summary.results[1]) == """
                ✗ rejects a "stale" <nonce> & tells the user (scenarios/sign-in/basic.yaml) 1.5 s
                    step expect at scenarios/sign-in/basic.yaml:21:7: the session's error differs from what the scenario expects
                    expected: error invalid_nonce
                    actual: signed in as alice@example.com
                """)
    }

    /// Skipped scenarios give their reason; interrupted ones say so.
    @Test("skipped and interrupted lines")
    func skippedAndInterrupted() {
        #expect(
            plain.line(for: Fixtures.summary.results[2])
                == "- refreshes after the access token expires (scenarios/refresh.yaml) skipped: the target issuer has no admin API"
        )
        #expect(
            plain.line(for: Fixtures.summary.results[3])
                == "! Zoë signs in again (scenarios/refresh.yaml) interrupted")
    }

    /// Colour wraps the mark in SGR codes and resets after it; plain output has no escapes.
    @Test("colours only when asked")
    func colours() {
        let line = coloured.line(for: Fixtures.summary.results[1])
        #expect(line.hasPrefix("\u{1B}[31m✗\u{1B}[0m "))
        for result in Fixtures.summary.results {
            #expect(!plain.line(for: result).contains("\u{1B}"))
        }
        #expect(!plain.summary(Fixtures.summary).contains("\u{1B}"))
        #expect(coloured.summary(Fixtures.summary).contains("\u{1B}[31m1 failed\u{1B}[0m"))
    }

    /// The summary counts every status and the time, and says when the run was seeded and when
    /// it was interrupted.
    @Test("summary")
    func summary() {
        var results = Array(repeating: ScenarioResult(name: "p", file: "f", status: .passed), count: 12)
        results.append(ScenarioResult(name: "f", file: "f", status: .failed))
        results += Array(repeating: ScenarioResult(name: "s", file: "f", status: .skipped), count: 2)
        #expect(
            plain.summary(RunSummary(results: results, durationMilliseconds: 3449))
                == "12 passed, 1 failed, 2 skipped in 3.4 s")
        #expect(
            plain.summary(Fixtures.summary)
                == "1 passed, 1 failed, 1 skipped, 1 interrupted in 3.5 s (seed 42) (interrupted)")
    }

    /// On a terminal the progress line rewrites itself; elsewhere it is plain text.
    @Test("progress line")
    func progress() {
        #expect(plain.progress(done: 3, total: 40, failed: 0) == "3/40 scenarios")
        #expect(plain.progress(done: 12, total: 40, failed: 1) == "12/40 scenarios, 1 failed")
        let terminal = ConsoleReporter(useColor: false, isTerminal: true)
        #expect(terminal.progress(done: 3, total: 40, failed: 0) == "\r\u{1B}[2K3/40 scenarios")
        #expect(
            coloured.progress(done: 1, total: 2, failed: 1).hasPrefix("\r\u{1B}[2K1/2 scenarios, \u{1B}[31m"))
    }
}
