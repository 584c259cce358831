import Foundation
import Issuer
import Locking
import Scenario
import ScenarioReports
import ScenarioRunner

/// `scripts/bench report`: the HTML report of the bundled library, next to the run it reports.
///
/// Runs the library twice with two jobs: once as `run` does without `--html` (results only), once
/// keeping every scenario's exchanges redacted as `run --html` does; then renders the report
/// `rounds` times and writes it atomically. Prints the two runs' wall times, the best and
/// median render and write, and the page's size. Targets: the page under 5 MB, written in
/// under 1 s.
func benchReport(rounds: Int, output: String) async throws {
    let files = try ScenarioDiscovery.files(in: ["scenarios"])
    var scenarios: [Scenario] = []
    for file in files {
        scenarios.append(try ScenarioLoader.load(path: file, tenantCheck: TenantLoader.check))
    }
    var options = ScenarioSuite.Options()
    options.jobs = 2

    let plainStart = ContinuousClock.now
    _ = await ScenarioSuite(options: options).run(scenarios) { _ in }
    let plain = ContinuousClock.now - plainStart

    let traces = Mutex([ScenarioKey: ScenarioTrace]())
    let tracedStart = ContinuousClock.now
    let results = await ScenarioSuite(options: options).run(scenarios) { outcome in
        let trace = ScenarioTrace(
            exchanges: Redaction.default.apply(to: outcome.exchanges), recording: outcome.recording)
        traces.withLock { $0[outcome.result.key] = trace }
    }
    let traced = ContinuousClock.now - tracedStart
    let summary = RunSummary(results: results, durationMilliseconds: milliseconds(traced))
    let collected = traces.withLock { $0 }

    var times: [Duration] = []
    var size = 0
    for _ in 0..<max(1, rounds) {
        let start = ContinuousClock.now
        let page = HTMLReport.render(
            summary, traces: collected, commandLine: "signinsim run --html \(output)")
        try AtomicFile.write(page, to: output)
        times.append(ContinuousClock.now - start)
        size = page.count
    }
    times.sort()
    let best = milliseconds(times[0])
    let median = milliseconds(times[times.count / 2])
    print(
        "bundled library: \(scenarios.count) scenarios, \(collected.values.reduce(0) { $0 + $1.exchanges.count }) exchanges, --jobs 2"
    )
    print(String(format: "  run without --html:          %8.0f ms wall", milliseconds(plain)))
    print(String(format: "  run keeping the exchanges:   %8.0f ms wall", milliseconds(traced)))
    print(
        String(
            format:
                "  HTML render and write:       %8.1f ms best, %.1f ms median of %d   target < 1000 ms: %@",
            best, median, times.count, median < 1000 ? "meets" : "BELOW"))
    print(
        String(
            format: "  page size:                   %8.2f MB (%d bytes)         target < 5 MB: %@",
            Double(size) / 1_000_000, size, size < 5_000_000 ? "meets" : "BELOW"))
}

private func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}
