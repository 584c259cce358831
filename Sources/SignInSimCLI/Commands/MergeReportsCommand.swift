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
            .option("report-json", value: "file", help: "Write the joined JSON report here (atomically)."),
            .option("junit", value: "file", help: "Write the joined JUnit XML report here (atomically)."),
        ],
        arguments: [.argument("report", help: "The JSON reports of the shards.", variadic: true)],
        run: { arguments, context in try mergeReports(arguments, context: context) })

    static func mergeReports(_ arguments: ParsedArguments, context: CLIContext) throws -> ExitCode {
        let outputs = [("report-json", arguments.value("report-json")), ("junit", arguments.value("junit"))]
        guard outputs.contains(where: { $0.1 != nil }) else {
            throw UsageError("merge-reports needs --report-json <file>, --junit <file> or both")
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
            let bytes = option == "junit" ? JUnitReport.render(summary) : JSONReport.render(summary)
            do {
                try AtomicFile.write(bytes, to: path)
            } catch {
                throw CommandFailure("cannot write the report: \(error)", exitCode: .invalidInput)
            }
        }
        context.writeOut(
            ConsoleReporter(isTerminal: false, environment: context.environment).summary(summary) + "\n")
        if summary.interrupted { return .failure }
        return summary.count(.failed) + summary.count(.interrupted) > 0 ? .failure : .success
    }
}
