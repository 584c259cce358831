public import Errors
public import Scenario

/// Why the reports of a sharded run could not be joined.
public struct ShardMergeError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// No report was given.
        case noReports = "no_reports"
        /// A report is not of a sharded run (`run` without `--shard-split`).
        case notAShard = "not_a_shard"
        /// The reports are not of one run: different shard counts, selections or seeds.
        case differentRuns = "different_runs"
        /// A scenario is in two reports (a shard given twice, or run twice).
        case duplicate
        /// A scenario the run selected is in no report (a shard that did not finish or upload).
        case missing
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// Joins the reports of the shards of one `run --shard-split I/N` into the report of the whole
/// run, as if it had run on one machine.
///
/// Each shard's report lists every scenario of the whole run (`RunSummary.selection`), so a
/// shard that never reported is found: every selected scenario must be in exactly one report.
/// The joined run is interrupted if any shard was, and lasted as long as its longest shard
/// (shards run side by side).
public enum ShardMerge {
    /// One shard's report and the file it came from (for messages).
    public struct Shard: Sendable {
        public var file: String
        public var summary: RunSummary

        public init(file: String, summary: RunSummary) {
            self.file = file
            self.summary = summary
        }
    }

    public static func merge(_ shards: [Shard]) throws(ShardMergeError) -> RunSummary {
        guard let first = shards.first else { throw ShardMergeError(.noReports, "no report to merge") }
        var count: Int?
        for shard in shards {
            guard let split = shard.summary.shard, let parsed = ShardSplit(split),
                shard.summary.selection != nil
            else {
                throw ShardMergeError(
                    .notAShard, "\(shard.file) is not the report of a shard (run with --shard-split I/N)")
            }
            if let count, count != parsed.count {
                throw ShardMergeError(
                    .differentRuns,
                    "\(first.file) is a shard of \(count), \(shard.file) of \(parsed.count): not one run")
            }
            count = parsed.count
            if shard.summary.selection != first.summary.selection {
                throw ShardMergeError(
                    .differentRuns,
                    "\(first.file) and \(shard.file) selected different scenarios: not one run"
                        + " (the same files, tags and --shard-split N give the same selection)")
            }
            if shard.summary.seed != first.summary.seed {
                throw ShardMergeError(
                    .differentRuns,
                    "\(first.file) ran with \(ScenarioResult.describeSeed(first.summary.seed)), \(shard.file)"
                        + " with \(ScenarioResult.describeSeed(shard.summary.seed)): not one run")
            }
        }
        let selection = first.summary.selection ?? []
        var reportedBy: [ScenarioKey: String] = [:]
        var results: [ScenarioKey: ScenarioResult] = [:]
        for shard in shards {
            for result in shard.summary.results {
                if let earlier = reportedBy[result.key] {
                    throw ShardMergeError(.duplicate, "\(result.key) is in both \(earlier) and \(shard.file)")
                }
                reportedBy[result.key] = shard.file
                results[result.key] = result
            }
        }
        let selected = Set(selection)
        if let stray = results.keys.sorted(by: { $0.description < $1.description }).first(where: {
            !selected.contains($0)
        }) {
            throw ShardMergeError(
                .differentRuns, "\(stray) (in \(reportedBy[stray] ?? "")) is not in the run's selection")
        }
        let missing = selection.filter { results[$0] == nil }
        if !missing.isEmpty {
            let shown = missing.prefix(5).map(\.description).joined(separator: "; ")
            let more = missing.count > 5 ? " and \(missing.count - 5) more" : ""
            throw ShardMergeError(
                .missing,
                "\(missing.count) scenario(s) of the run are in no report: \(shown)\(more)"
                    + " (\(shards.count) of \(count ?? 0) shard reports given)")
        }
        return RunSummary(
            results: selection.compactMap { results[$0] },
            interrupted: shards.contains { $0.summary.interrupted },
            durationMilliseconds: shards.map(\.summary.durationMilliseconds).max() ?? 0,
            seed: first.summary.seed)
    }
}
