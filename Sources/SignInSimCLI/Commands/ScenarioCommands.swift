import Foundation
import Issuer
import Locking
import Scenario
import ScenarioReports
import ScenarioRunner

extension SignInSimCLI {
    static let scenarioPathsArgument = ArgumentSpec.argument(
        "path", help: "Scenario files or folders (default: scenarios).", optional: true, variadic: true)
    static let envOption = OptionSpec.option(
        "env", short: "e", value: "KEY[=VALUE]",
        help:
            "Set a scenario variable, overriding its env (repeatable); KEY alone takes the value of"
            + " the environment variable KEY, so that a secret need not be on the command line.",
        repeatable: true)

    static let runCommand = CommandSpec(
        name: "run",
        abstract: "Run scenarios end to end and report the results.",
        discussion: """
            Each scenario runs in a fresh world: its own embedded issuer and Apple (or the real
            issuer it names), one simulated phone and its apps. Every file is checked before
            anything runs, and so is every report path (by writing there). Exit status: 0 all
            passed, 1 a scenario failed, 2 a scenario is invalid, no scenario is selected or a
            report cannot be written (nothing runs), 64 usage, 130 interrupted (the reports
            still hold what finished).
            """,
        options: [
            envOption, RunOptions.seed, RunOptions.jobs, RunOptions.includeTags, RunOptions.excludeTags,
            RunOptions.shardSplit, RunOptions.failFast, browserOption, RunOptions.screenshots,
            RunOptions.timeout,
            RunOptions.reportJSON, RunOptions.junit, RunOptions.html, RunOptions.harDirectory,
            RunOptions.harRedact,
            RunOptions.noRedact,
        ],
        arguments: [scenarioPathsArgument],
        run: { arguments, context in try await RunCommand(arguments, context: context).run() })

    static let validateCommand = CommandSpec(
        name: "validate",
        abstract: "Check scenario files without running them.",
        discussion: "Prints file:line:column: reason for each invalid file and exits 2, or exits 0.",
        options: [envOption],
        arguments: [scenarioPathsArgument],
        run: { arguments, context in
            let loaded = try ScenarioFiles(arguments, environment: context.environment)
            for error in loaded.errors { context.writeError("\(error)\n") }
            context.writeOut("\(loaded.scenarios.count) valid, \(loaded.errors.count) invalid\n")
            return loaded.errors.isEmpty ? .success : .invalidInput
        })

    static let schemaCommand = CommandSpec(
        name: "schema",
        abstract: "Print the JSON Schema of scenario files.",
        discussion: """
            The same schema is checked in as scenarios/scenario.schema.json; point an editor's
            YAML language server at it (# yaml-language-server: $schema=…) for completion and
            checks while writing scenarios.
            """,
        run: { _, context in
            context.writeOut(ScenarioSchema.json)
            return .success
        })

    static let listCommand = CommandSpec(
        name: "list",
        abstract: "List scenarios with their tags and descriptions.",
        options: [envOption, ListOptions.includeTags, ListOptions.excludeTags]
            + VocabularyList.allCases.map(\.option),
        arguments: [scenarioPathsArgument],
        run: { arguments, context in
            let lists = VocabularyList.allCases.filter { arguments.flag($0.option) }
            if !lists.isEmpty {
                for list in lists { context.writeOut(list.names.map { $0 + "\n" }.joined()) }
                return .success
            }
            let loaded = try ScenarioFiles(arguments, environment: context.environment)
            for error in loaded.errors { context.writeError("\(error)\n") }
            let selection = try RunCommand.selection(
                arguments, include: ListOptions.includeTags, exclude: ListOptions.excludeTags, shard: nil)
            for scenario in loaded.scenarios where selection.admits(tags: scenario.tags) {
                let tags = scenario.tags.isEmpty ? "" : " [\(scenario.tags.joined(separator: ", "))]"
                context.writeOut("\(scenario.location.file): \(scenario.name)\(tags)\n")
                if !scenario.description.isEmpty {
                    let summary = scenario.description.split(separator: "\n").first.map(String.init) ?? ""
                    context.writeOut("    \(summary)\n")
                }
            }
            return loaded.errors.isEmpty ? .success : .invalidInput
        })
}

/// The options of `signinsim run`, besides `-e` and `--browser`.
enum RunOptions {
    /// `--seed <n>`.
    static let seed = OptionSpec.option(
        "seed", value: "n",
        help:
            "The run's seed; a scenario's own seed wins (default: 0 against the embedded issuer,"
            + " fresh randomness against a real one).")
    /// `-j, --jobs <n>`.
    static let jobs = OptionSpec.option(
        "jobs", short: "j", value: "n", help: "Scenarios at once (default: the core count).")
    /// `--include-tags <tags>`.
    static let includeTags = OptionSpec.option(
        "include-tags", value: "tags", help: "Run only scenarios with one of these comma-separated tags.")
    /// `--exclude-tags <tags>`.
    static let excludeTags = OptionSpec.option(
        "exclude-tags", value: "tags", help: "Skip scenarios with any of these comma-separated tags.")
    /// `--shard-split <I/N>`.
    static let shardSplit = OptionSpec.option(
        "shard-split", value: "I/N", help: "Run shard I of N (from 1), for CI matrices.")
    /// `--fail-fast`.
    static let failFast = OptionSpec.flag(
        "fail-fast", help: "Stop starting scenarios after the first failure.")
    /// `--screenshots <which>`.
    static let screenshots = OptionSpec.option(
        "screenshots", value: "which",
        help:
            "Web sheet pictures the reports keep: auto (failed scenarios and real issuers), all or none"
            + " (default: auto).",
        allowed: ScreenshotPolicy.allCases.map(\.rawValue))
    /// `--timeout <seconds>`.
    static let timeout = OptionSpec.option(
        "timeout", value: "seconds",
        help: "Time limit per scenario (default: 120; a scenario's own wins)."
    )
    /// `--report-json <file>`.
    static let reportJSON = OptionSpec.option(
        "report-json", value: "file", help: "Write the JSON report here (atomically).")
    /// `--junit <file>`.
    static let junit = OptionSpec.option(
        "junit", value: "file", help: "Write a JUnit XML report here (atomically).")
    /// `--html <file>`.
    static let html = OptionSpec.option(
        "html", value: "file",
        help:
            "Write a self-contained HTML report here, with a sequence diagram per scenario (atomically)."
    )
    /// `--har-dir <dir>`.
    static let harDirectory = OptionSpec.option(
        "har-dir", value: "dir", help: "Write a HAR 1.2 file per scenario into this folder.")
    /// `--har-redact <kinds>`, repeatable.
    static let harRedact = OptionSpec.option(
        "har-redact", value: "kinds",
        help:
            "Also hide these in HAR files (comma-separated):"
            + " \((Redaction.optionalKindNames + ["all"]).joined(separator: ", ")); none first drops"
            + " the default ones (\(Redaction.defaultKindNames.joined(separator: ", "))).",
        repeatable: true)
    /// `--no-redact`.
    static let noRedact = OptionSpec.flag(
        "no-redact", help: "Keep every secret in HAR files (as --har-redact none).")

    /// The report files, in the order `run` checks and writes them.
    static let reports = [reportJSON, junit, html]
}

/// The options of `signinsim list`, besides `-e` and the vocabulary flags.
enum ListOptions {
    /// `--include-tags <tags>`.
    static let includeTags = OptionSpec.option(
        "include-tags", value: "tags", help: "Only scenarios with one of these tags.")
    /// `--exclude-tags <tags>`.
    static let excludeTags = OptionSpec.option(
        "exclude-tags", value: "tags", help: "Not scenarios with any of these tags.")
}

/// The scenario files named on the command line, loaded and checked.
struct ScenarioFiles {
    var scenarios: [Scenario] = []
    var errors: [ScenarioError] = []

    /// Loads the files the positional arguments name (default `scenarios`), with the `-e`
    /// overrides; `-e KEY` without a value reads `KEY` from `environment`.
    init(_ arguments: ParsedArguments, environment: [String: String]) throws {
        var overrides: [String: String] = [:]
        for setting in arguments.allValues(SignInSimCLI.envOption) {
            let (key, value) = try Self.override(setting, environment: environment)
            overrides[key] = value
        }
        let paths = arguments.positionals.isEmpty ? ["scenarios"] : arguments.positionals
        let files: [String]
        do {
            files = try ScenarioDiscovery.files(in: paths)
        } catch {
            throw CommandFailure(error.message, exitCode: .invalidInput)
        }
        for file in files {
            do {
                scenarios.append(
                    try ScenarioLoader.load(
                        path: file, overrides: overrides, tenantCheck: TenantLoader.check))
            } catch {
                errors.append(error)
            }
        }
    }
}

extension ScenarioFiles {
    /// One `-e` value: `KEY=VALUE` as written, or `KEY` alone, whose value is the environment
    /// variable of that name. A `KEY` the environment lacks is a usage error naming it: running
    /// on with the scenario's default could sign in as someone else without a word.
    static func override(_ setting: String, environment: [String: String]) throws(UsageError) -> (
        key: String, value: String
    ) {
        guard let equals = setting.firstIndex(of: "=") else {
            guard !setting.isEmpty else {
                throw UsageError("The value '' is invalid for '-e <KEY[=VALUE]>': expected KEY or KEY=VALUE")
            }
            guard let value = environment[setting] else {
                throw UsageError(
                    "'-e \(setting)' takes the value of the environment variable \(setting), which is not set"
                )
            }
            return (setting, value)
        }
        guard equals != setting.startIndex else {
            throw UsageError(
                "The value '\(setting)' is invalid for '-e <KEY[=VALUE]>': expected KEY or KEY=VALUE")
        }
        return (String(setting[..<equals]), String(setting[setting.index(after: equals)...]))
    }
}

/// Why a run has nothing to run: each is an exit 2, as an invalid file is, since nothing
/// runs and a CI job that ran nothing has not passed.
enum EmptySelection: Equatable, Sendable {
    /// The paths hold no scenario file.
    case noScenarioFiles
    /// `--shard-split I/N` gave this shard no file (there are fewer files than shards).
    case emptyShard
    /// `--include-tags` / `--exclude-tags` left out every scenario of the shard.
    case noTagMatch

    static let exitCode = ExitCode.invalidInput

    /// Nil when something was chosen; else the first step at which the choice became empty.
    init?(found: Int, inShard: Int, chosen: Int) {
        if found == 0 {
            self = .noScenarioFiles
        } else if inShard == 0 {
            self = .emptyShard
        } else if chosen == 0 {
            self = .noTagMatch
        } else {
            return nil
        }
    }

    /// The reason, with the paths or options that led to it.
    func reason(_ arguments: ParsedArguments) -> String {
        switch self {
        case .noScenarioFiles:
            let paths = arguments.positionals.isEmpty ? ["scenarios"] : arguments.positionals
            return "no scenario files in \(paths.joined(separator: ", "))"
        case .emptyShard:
            return
                "shard \(arguments.value(RunOptions.shardSplit) ?? "") of --shard-split holds no scenario file"
                + " (there are fewer files than shards)"
        case .noTagMatch:
            let filters = [RunOptions.includeTags, RunOptions.excludeTags].compactMap { option in
                arguments.value(option).map { "--\(option.long) \($0)" }
            }
            return "no scenario matches \(filters.joined(separator: " "))"
        }
    }
}

/// `signinsim run`.
struct RunCommand {
    let arguments: ParsedArguments
    let context: CLIContext

    init(_ arguments: ParsedArguments, context: CLIContext) {
        self.arguments = arguments
        self.context = context
    }

    static func tags(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
    }

    /// The scenarios `run` (or `list`, with its own tag options and no shards) selects.
    static func selection(
        _ arguments: ParsedArguments, include: OptionSpec = RunOptions.includeTags,
        exclude: OptionSpec = RunOptions.excludeTags, shard: OptionSpec? = RunOptions.shardSplit
    ) throws -> ScenarioSelection {
        var selection = ScenarioSelection(
            includeTags: tags(arguments.value(include)), excludeTags: tags(arguments.value(exclude)))
        if let shard, let split = arguments.value(shard) {
            guard let shard = ShardSplit(split) else {
                throw UsageError(
                    "The value '\(split)' is invalid for '--shard-split <I/N>': expected I/N with 1 <= I <= N"
                )
            }
            selection.shard = shard
        }
        return selection
    }

    func run() async throws -> ExitCode {
        var options = try suiteOptions()
        let redaction = try reportRedaction()
        let selection = try Self.selection(arguments)
        let loaded = try ScenarioFiles(arguments, environment: context.environment)
        if !loaded.errors.isEmpty {
            for error in loaded.errors { context.writeError("\(error)\n") }
            context.writeError("\(loaded.errors.count) invalid scenario file(s); nothing was run\n")
            return .invalidInput
        }
        let chosen = try Self.chosen(loaded.scenarios, by: selection, arguments)
        options.browsers = try SignInSimCLI.browserSelection(arguments, scenarios: chosen, context: context)
        if let policy = try screenshotPolicy() { options.screenshots = policy }
        let harDirectory = arguments.value(RunOptions.harDirectory)
        try prepareOutputs(harDirectory: harDirectory)
        let console = ConsoleReporter(
            isTerminal: context.standardOutputIsTerminal, environment: context.environment)
        let statusLine = StatusLine(
            isTerminal: context.standardOutputIsTerminal && chosen.count > 1, writeOut: context.writeOut,
            writeError: context.writeError)
        let started = ContinuousClock.now
        let run = await runSuite(
            chosen, options: options, redaction: redaction, harDirectory: harDirectory, console: console,
            statusLine: statusLine)
        let summary = RunSummary(
            results: run.results, interrupted: run.interrupted,
            durationMilliseconds: Double((ContinuousClock.now - started).components.seconds) * 1000
                + Double((ContinuousClock.now - started).components.attoseconds) / 1e15,
            seed: options.seed, shard: arguments.value(RunOptions.shardSplit),
            selection: selection.shard == nil
                ? nil
                : loaded.scenarios.filter { selection.admits(tags: $0.tags) }.map {
                    ScenarioKey(file: $0.location.file, name: $0.name)
                })
        statusLine.clear()
        context.writeOut(console.summary(summary) + "\n")
        try writeReports(summary, traces: run.traces)
        if run.interrupted { return .interrupted }
        return summary.count(.failed) + summary.count(.interrupted) > 0 ? .failure : .success
    }

    /// The report outputs `run` was given, in the order of its options.
    static func reportDestinations(_ arguments: ParsedArguments) -> [ReportDestination] {
        var destinations: [ReportDestination] = []
        for option in RunOptions.reports {
            if let path = arguments.value(option) {
                destinations.append(.file(option: option.long, path: path))
            }
        }
        if let path = arguments.value(RunOptions.harDirectory) {
            destinations.append(.directory(option: RunOptions.harDirectory.long, path: path))
        }
        return destinations
    }

    func write(_ bytes: [UInt8], to path: String?) throws {
        guard let path else { return }
        try ReportDestination.write(bytes, to: path)
    }

    /// The command line as a report shows it: options in a fixed order, and the values of
    /// `-e` hidden (a password may be one).
    ///
    /// - Parameter hiding: options whose values are secrets, each shown as `…`.
    static func displayed(_ arguments: ParsedArguments, hiding: [OptionSpec] = []) -> String {
        let hidden = Set(hiding.map(\.long))
        var words = arguments.commandPath.isEmpty ? ["signinsim", "run"] : arguments.commandPath
        for (name, values) in arguments.givenOptions {
            for value in values {
                let shown =
                    hidden.contains(name)
                    ? "…"
                    : name == SignInSimCLI.envOption.long
                        ? String(value.prefix { $0 != "=" }) + (value.contains("=") ? "=…" : "") : value
                words += ["--\(name)", shown]
            }
        }
        words += arguments.givenFlags.map { "--\($0)" }
        words += arguments.positionals
        return words.map { word in
            word.isEmpty || word.contains(where: { " \"'$\\".contains($0) })
                ? "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" : word
        }.joined(separator: " ")
    }

    /// `folder-file-name.har`: unique per scenario file, readable in a listing.
    static func harFileName(for result: ScenarioResult) -> String {
        var name = result.file
        for ext in [".yaml", ".yml", ".json"] where name.hasSuffix(ext) {
            name = String(name.dropLast(ext.count))
        }
        let safe = name.unicodeScalars.map { scalar -> Character in
            let ok = CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_"
            return ok && scalar.isASCII ? Character(scalar) : "-"
        }
        return String(safe).trimmingCharacters(in: CharacterSet(charactersIn: "-.")) + ".har"
    }
}

/// The lists of names `signinsim list` prints instead of scenarios, one name a line.
enum VocabularyList: String, CaseIterable {
    case steps
    case expectations
    case profiles
    case faults
    case errors
    case phases

    /// `--steps` and the others: a flag of `list`.
    var option: OptionSpec { .flag(rawValue, help: help) }

    var help: String {
        switch self {
        case .steps: "Print every step name instead of scenarios."
        case .expectations: "Print every check an expect step takes."
        case .profiles: "Print every SDK behaviour profile name (they join with +)."
        case .faults: "Print every fault the embedded issuer can show."
        case .errors: "Print every outcome a step's error: may name (none and the SDK's error codes)."
        case .phases: "Print every app lifecycle phase."
        }
    }

    var names: [String] {
        switch self {
        case .steps: ScenarioVocabulary.steps
        case .expectations: ScenarioVocabulary.expectations
        case .profiles: ScenarioVocabulary.profiles
        case .faults: ScenarioVocabulary.faults
        case .errors: ScenarioVocabulary.outcomes
        case .phases: ScenarioVocabulary.appPhases
        }
    }
}
