import Foundation
import Recordings
import Scenario
import ScenarioReports

extension SignInSimCLI {
    static let mergeReportsCommand = CommandSpec(
        name: "merge-reports",
        abstract: "Join the JSON reports of a sharded run into the reports of the whole run.",
        discussion: """
            Reads the --report-json files of every shard of one run --shard-split I/N and writes
            one JSON report, one JUnit XML report or both, as if the run had been on one machine.
            Every scenario the run selected must be in exactly one report: a scenario in two
            reports, one in none (a shard that did not finish or upload) and reports of
            different runs are errors. Exit status: 0 every scenario passed, 1 one failed or a
            shard was interrupted, 2 the reports cannot be read or joined (nothing is written),
            64 usage.
            """,
        options: [
            MergeReportsOptions.reportJSON, MergeReportsOptions.junit, MergeReportsOptions.html,
            MergeReportsOptions.harDirectory,
        ],
        arguments: [.argument("report", help: "The JSON reports of the shards.", variadic: true)],
        run: { arguments, context in try mergeReports(arguments, context: context) })

    /// The options of `merge-reports`.
    enum MergeReportsOptions {
        /// `--report-json <file>`.
        static let reportJSON = OptionSpec.option(
            "report-json", value: "file", help: "Write the joined JSON report here (atomically).")
        /// `--junit <file>`.
        static let junit = OptionSpec.option(
            "junit", value: "file", help: "Write the joined JUnit XML report here (atomically).")
        /// `--html <file>`.
        static let html = OptionSpec.option(
            "html", value: "file",
            help:
                "Write the joined HTML report here (atomically), with a diagram for each scenario whose HAR"
                + " is found.")
        /// `--har-dir <dir>`, repeatable.
        static let harDirectory = OptionSpec.option(
            "har-dir", value: "dir",
            help:
                "Where to look for the shards' HAR files when they are no longer where the shards wrote"
                + " them (repeatable).",
            repeatable: true)
    }

    static func mergeReports(_ arguments: ParsedArguments, context: CLIContext) throws -> ExitCode {
        let outputs = [MergeReportsOptions.reportJSON, MergeReportsOptions.junit, MergeReportsOptions.html]
            .map { ($0.long, arguments.value($0)) }
        guard outputs.contains(where: { $0.1 != nil }) else {
            throw UsageError(
                "merge-reports needs --report-json <file>, --junit <file>, --html <file> or several")
        }
        var shards: [ShardMerge.Shard] = []
        for file in arguments.positionals {
            let bytes: [UInt8]
            do {
                bytes = try context.readFile(file)
            } catch let failure as CommandFailure {
                throw CommandFailure(failure.message, exitCode: .invalidInput)
            }
            do {
                shards.append(
                    ShardMerge.Shard(file: file, summary: try JSONReportReader.read(bytes, file: file)))
            } catch {
                throw CommandFailure(error.message, exitCode: .invalidInput)
            }
        }
        let summary: RunSummary
        do {
            summary = try ShardMerge.merge(shards)
        } catch {
            throw CommandFailure("\(error.message); nothing was written", exitCode: .invalidInput)
        }
        for (option, path) in outputs {
            guard let path else { continue }
            let bytes: [UInt8]
            switch option {
            case MergeReportsOptions.junit.long: bytes = JUnitReport.render(summary)
            case MergeReportsOptions.html.long:
                let traces = traces(
                    of: summary, harDirectories: arguments.allValues(MergeReportsOptions.harDirectory),
                    context: context)
                bytes = HTMLReport.render(
                    summary, traces: traces, commandLine: RunCommand.displayed(arguments))
            default: bytes = JSONReport.render(summary)
            }
            try ReportDestination.write(bytes, to: path, exitCode: .invalidInput)
        }
        context.writeOut(
            ConsoleReporter(isTerminal: false, environment: context.environment).summary(summary) + "\n")
        if summary.interrupted { return .failure }
        return summary.count(.failed) + summary.count(.interrupted) > 0 ? .failure : .success
    }

    /// The diagrams of the joined run: each scenario's HAR, where its shard wrote it or by its
    /// name in one of `harDirectories` (a CI job downloads the shards' files elsewhere). A HAR
    /// not found or not readable leaves its scenario without a diagram, with a warning.
    static func traces(of summary: RunSummary, harDirectories: [String], context: CLIContext)
        -> [ScenarioKey: ScenarioTrace]
    {
        var traces: [ScenarioKey: ScenarioTrace] = [:]
        for result in summary.results {
            guard let recorded = result.harPath else { continue }
            let name = recorded.split(separator: "/").last.map(String.init) ?? recorded
            let candidates = [recorded] + harDirectories.map { $0 + "/" + name }
            guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                context.writeError(
                    "signinsim: no HAR for \(result.key) (looked for \(candidates.joined(separator: ", ")))\n"
                )
                continue
            }
            do {
                traces[result.key] = try HARImporter.load(path: path).trace
            } catch {
                context.writeError("signinsim: \(error); \(result.key) has no diagram\n")
            }
        }
        return traces
    }
}
