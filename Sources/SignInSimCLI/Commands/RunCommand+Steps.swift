import Foundation
import Locking
import Scenario
import ScenarioReports
import ScenarioRunner

/// The steps of `signinsim run`, in the order `run()` takes them: options, selection, outputs,
/// the suite itself, and the reports.
extension RunCommand {
    /// `--seed`, `--jobs`, `--timeout` and `--fail-fast`, checked.
    func suiteOptions() throws -> ScenarioSuite.Options {
        var options = ScenarioSuite.Options()
        options.seed = try arguments.seed(RunOptions.seed)
        if let jobs = try arguments.integer(RunOptions.jobs) {
            guard (1...64).contains(jobs) else {
                throw UsageError("The value for '--jobs <n>' must be 1 to 64")
            }
            options.jobs = Int(jobs)
        }
        if let limit = try arguments.integer(RunOptions.timeout) {
            guard limit > 0 else { throw UsageError("The value for '--timeout <seconds>' must be positive") }
            guard limit <= Scenario.longestTimeLimitSeconds else {
                throw UsageError(
                    "The value for '--timeout <seconds>' must be at most \(Scenario.longestTimeLimitSeconds) (366 days)"
                )
            }
            options.timeLimitSeconds = Double(limit)
        }
        options.failFast = arguments.flag(RunOptions.failFast)
        return options
    }

    /// What the HAR files and the HTML report hide: `--no-redact` or `--har-redact`, not both.
    func reportRedaction() throws -> Redaction {
        if arguments.flag(RunOptions.noRedact), !arguments.allValues(RunOptions.harRedact).isEmpty {
            throw UsageError("'--no-redact' and '--har-redact <kinds>' cannot be used together")
        }
        return arguments.flag(RunOptions.noRedact)
            ? .disabled : try SignInSimCLI.redaction(arguments, option: RunOptions.harRedact) ?? .default
    }

    /// The scenarios of this shard that the tag filters admit.
    /// - Throws: `CommandFailure` naming the step that left none.
    static func chosen(
        _ scenarios: [Scenario], by selection: ScenarioSelection, _ arguments: ParsedArguments
    ) throws -> [Scenario] {
        let files = Set(selection.shardFiles(scenarios.map(\.location.file)))
        let inShard = scenarios.filter { files.contains($0.location.file) }
        let chosen = inShard.filter { selection.admits(tags: $0.tags) }
        if let empty = EmptySelection(found: scenarios.count, inShard: inShard.count, chosen: chosen.count) {
            throw CommandFailure(
                "no scenario to run: \(empty.reason(arguments))", exitCode: EmptySelection.exitCode)
        }
        return chosen
    }

    /// `--screenshots`, when given.
    func screenshotPolicy() throws -> ScreenshotPolicy? {
        guard let text = arguments.value(RunOptions.screenshots) else { return nil }
        guard let policy = ScreenshotPolicy(rawValue: text) else {
            throw UsageError(
                "The value '\(text)' is invalid for '--screenshots <which>': expected one of "
                    + ScreenshotPolicy.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return policy
    }

    /// Checks that every report can be written before anything runs, and removes the stale
    /// temporary files of earlier runs from the folders the reports go to.
    func prepareOutputs(harDirectory: String?) throws {
        for destination in Self.reportDestinations(arguments) {
            do throws(ReportDestination.Unwritable) {
                try destination.check()
            } catch {
                throw CommandFailure("\(error); nothing was run", exitCode: .invalidInput)
            }
        }
        // A run killed while writing (SIGKILL gives no chance to clean up) leaves its hidden
        // temporary file beside the HAR or report it was writing: the next run removes those
        // of dead processes from the folders it writes to.
        var outputDirectories = Set([harDirectory].compactMap { $0 })
        for report in RunOptions.reports.compactMap({ arguments.value($0) }) {
            outputDirectories.insert(AtomicFile.parentDirectory(of: report))
        }
        for directory in outputDirectories { AtomicFile.removeStaleTemporaryFiles(in: directory) }
    }

    /// Runs the chosen scenarios, writing each one's HAR and console line as it finishes, until
    /// the end or a termination signal.
    func runSuite(
        _ chosen: [Scenario], options: ScenarioSuite.Options, redaction: Redaction, harDirectory: String?,
        console: ConsoleReporter, statusLine: StatusLine
    ) async -> (results: [ScenarioResult], interrupted: Bool, traces: [ScenarioKey: ScenarioTrace]) {
        let isTerminal = context.standardOutputIsTerminal
        let suite = ScenarioSuite(options: options)
        let progress = Mutex((done: 0, failed: 0))
        let total = chosen.count
        let wantsHTML = arguments.value(RunOptions.html) != nil
        let traces = Mutex([ScenarioKey: ScenarioTrace]())
        let signals = TerminationSignals()
        defer { signals.cancel() }
        let runTask = Task {
            await suite.run(chosen) { outcome in
                var result = outcome.result
                if wantsHTML {
                    let trace = ScenarioTrace(
                        exchanges: redaction.apply(to: outcome.exchanges), recording: outcome.recording)
                    traces.withLock { $0[result.key] = trace }
                }
                if let harDirectory {
                    let path = harDirectory + "/" + Self.harFileName(for: result)
                    let bytes = HARWriter.render(
                        outcome.exchanges, recording: outcome.recording, creator: "signinsim",
                        version: SignInSimCLI.version, redaction: redaction)
                    do {
                        try AtomicFile.write(bytes, to: path)
                        result.harPath = path
                    } catch {
                        statusLine.printError("signinsim: cannot write \(path): \(error)\n")
                    }
                }
                let (done, failed) = progress.withLock { counts in
                    counts.done += 1
                    if result.status == .failed { counts.failed += 1 }
                    return (counts.done, counts.failed)
                }
                if result.status != .passed || !isTerminal || total == 1 {
                    statusLine.printOut(console.line(for: result) + "\n")
                }
                statusLine.show(console.progress(done: done, total: total, failed: failed))
            }
        }
        let interrupted = Mutex(false)
        let watcher = Task {
            _ = await signals.next()
            // Cancelled once the run is over: that is not a signal.
            guard !Task.isCancelled else { return }
            interrupted.withLock { $0 = true }
            suite.stop()
            runTask.cancel()
        }
        var results = await runTask.value
        let wasInterrupted = interrupted.withLock { $0 }
        watcher.cancel()
        await options.browsers.webKit?.shutdown()
        if let harDirectory {
            for index in results.indices where results[index].status != .skipped {
                results[index].harPath = harDirectory + "/" + Self.harFileName(for: results[index])
            }
        }
        return (results, wasInterrupted, traces.withLock { $0 })
    }

    /// `--report-json`, `--junit` and `--html`, each whole or not at all.
    func writeReports(_ summary: RunSummary, traces: [ScenarioKey: ScenarioTrace]) throws {
        try write(JSONReport.render(summary), to: arguments.value(RunOptions.reportJSON))
        try write(JUnitReport.render(summary), to: arguments.value(RunOptions.junit))
        if let path = arguments.value(RunOptions.html) {
            let page = HTMLReport.render(summary, traces: traces, commandLine: Self.displayed(arguments))
            try write(page, to: path)
        }
    }
}
