import Errors
import Foundation
import Scenario
import ScenarioReports
import ScenarioRunner
import SignInSDK

extension SignInSimCLI {
    static let matrixCommand = CommandSpec(
        name: "matrix",
        abstract: "Show which SDK behaviour profiles are exposed to which field bugs.",
        discussion: """
            Runs every field-bug scenario (default: scenarios/field-bugs) once per SDK behaviour
            profile, with the scenario's correct app (the one of the default profile) given that
            profile, and prints the profile × field-bug table: X exposed (the correct app failed),
            . not exposed, - not applicable (no app of the default profile to swap). Exit status:
            0 the default profile is exposed to none, 1 it is exposed to one, 2 a scenario file is
            invalid, 64 usage.
            """,
        options: [
            envOption, MatrixOptions.profiles, MatrixOptions.jobs, MatrixOptions.timeout, MatrixOptions.seed,
            MatrixOptions.json, MatrixOptions.html, SignInSimCLI.browserOption,
        ],
        arguments: [
            .argument(
                "path", help: "Field-bug scenario files or folders (default: scenarios/field-bugs).",
                optional: true,
                variadic: true)
        ],
        run: { arguments, context in try await matrix(arguments, context: context) })

    /// The options of `matrix`, besides `-e` and `--browser`.
    enum MatrixOptions {
        /// `--profiles <names>`.
        static let profiles = OptionSpec.option(
            "profiles", value: "names",
            help: "Only these comma-separated profiles (default: every one, `signinsim list --profiles`)."
        )
        /// `-j, --jobs <n>`.
        static let jobs = OptionSpec.option(
            "jobs", short: "j", value: "n", help: "Scenarios at once (default: the core count).")
        /// `--timeout <seconds>`.
        static let timeout = OptionSpec.option(
            "timeout", value: "seconds",
            help: "Time limit per run (default: 30); a run that hangs until it counts as exposed.")
        /// `--seed <n>`.
        static let seed = OptionSpec.option(
            "seed", value: "n", help: "The runs' seed (default: 0 against the embedded issuer).")
        /// `--json <file>`.
        static let json = OptionSpec.option(
            "json", value: "file", help: "Also write the table and every run's verdict as JSON here.")
        /// `--html <file>`.
        static let html = OptionSpec.option(
            "html", value: "file", help: "Also write the table as a self-contained HTML page here.")
    }

    static func matrix(_ arguments: ParsedArguments, context: CLIContext) async throws -> ExitCode {
        var parsed = arguments
        if parsed.positionals.isEmpty { parsed.positionals = ["scenarios/field-bugs"] }
        let profiles = RunCommand.tags(arguments.value(MatrixOptions.profiles))
        for name in profiles where !BehaviorProfile.names.contains(name) {
            throw UsageError(
                "The value '\(name)' is invalid for '--profiles <names>'"
                    + NearMiss.alternatives(for: name, among: BehaviorProfile.names, listing: "known"))
        }
        var options = try matrixSuiteOptions(arguments)
        try checkMatrixReports(arguments)
        let loaded = try ScenarioFiles(parsed, environment: context.environment)
        if !loaded.errors.isEmpty {
            for error in loaded.errors { context.writeError("\(error)\n") }
            context.writeError("\(loaded.errors.count) invalid scenario file(s); nothing was run\n")
            return .invalidInput
        }
        guard !loaded.scenarios.isEmpty else {
            throw CommandFailure(
                "no scenario to run in \(parsed.positionals.joined(separator: ", "))", exitCode: .invalidInput
            )
        }
        // Every profile alone, then the combinations the scenarios' faulty apps use.
        var chosen = profiles.isEmpty ? BehaviorProfile.names : profiles
        if profiles.isEmpty {
            for app in loaded.scenarios.flatMap(\.apps) where !chosen.contains(app.profile.description) {
                chosen.append(app.profile.description)
            }
        }
        options.browsers = try SignInSimCLI.browserSelection(
            parsed, scenarios: loaded.scenarios, context: context)
        let matrix: ExposureMatrix
        do {
            matrix = try await ExposureMatrix.measure(
                loaded.scenarios, profiles: chosen, suite: ScenarioSuite(options: options))
        } catch {
            await options.browsers.webKit?.shutdown()
            throw UsageError("'--profiles': \(error.message)")
        }
        await options.browsers.webKit?.shutdown()
        context.writeOut(MatrixReport.text(matrix))
        if let path = arguments.value(MatrixOptions.json) {
            try ReportDestination.write(
                Array(MatrixReport.json(matrix).prettyPrinted().utf8) + [UInt8(ascii: "\n")], to: path)
        }
        if let path = arguments.value(MatrixOptions.html) {
            try ReportDestination.write(
                HTMLReport.render(matrix, commandLine: RunCommand.displayed(arguments)), to: path)
        }
        return defaultProfileVerdict(matrix, profiles: chosen, context: context)
    }

    /// `--seed`, `--jobs` and `--timeout` (30 seconds unless given), checked.
    private static func matrixSuiteOptions(_ arguments: ParsedArguments) throws -> ScenarioSuite.Options {
        var options = ScenarioSuite.Options()
        options.seed = try arguments.seed(MatrixOptions.seed)
        options.timeLimitSeconds = 30
        if let jobs = try arguments.integer(MatrixOptions.jobs) {
            guard (1...64).contains(jobs) else {
                throw UsageError("The value for '--jobs <n>' must be 1 to 64")
            }
            options.jobs = Int(jobs)
        }
        if let limit = try arguments.integer(MatrixOptions.timeout) {
            guard (1...3600).contains(limit) else {
                throw UsageError("The value for '--timeout <seconds>' must be 1 to 3600")
            }
            options.timeLimitSeconds = Double(limit)
        }
        return options
    }

    /// Checks, before anything runs, that `--json` and `--html` can be written.
    private static func checkMatrixReports(_ arguments: ParsedArguments) throws {
        for option in [MatrixOptions.json, MatrixOptions.html] {
            guard let path = arguments.value(option) else { continue }
            do throws(ReportDestination.Unwritable) {
                try ReportDestination.file(option: option.long, path: path).check()
            } catch {
                throw CommandFailure("\(error); nothing was run", exitCode: .invalidInput)
            }
        }
    }

    /// Prints what the default profile is exposed to, with every reason: exit 1 when it is
    /// exposed to any field bug, 0 when to none or when it was not measured.
    private static func defaultProfileVerdict(
        _ matrix: ExposureMatrix, profiles: [String], context: CLIContext
    ) -> ExitCode {
        let defaultName = BehaviorProfile.defaultName
        guard profiles.contains(defaultName) else { return .success }
        let exposures = matrix.exposures(of: defaultName)
        if exposures.isEmpty {
            context.writeOut("\n\(defaultName): exposed to none\n")
            return .success
        }
        context.writeOut(
            "\n\(defaultName): exposed to \(exposures.map(\.id).joined(separator: ", ")); every reason:\n")
        for trial in matrix.trials where trial.profile == defaultName && trial.verdict == .exposed {
            context.writeOut("  \(trial.scenario): \(trial.reason ?? "")\n")
        }
        return .failure
    }

}
