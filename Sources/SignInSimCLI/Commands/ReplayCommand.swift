import Recordings
import Replay
import ScenarioReports
import ScenarioRunner
import SignInSDK
import WebKitSession

extension SignInSimCLI {
    /// `--browser` of replay and import-har: `browserOption`, with what its default is for a
    /// capture.
    static let browserReplayOption = {
        var option = browserOption
        option.help =
            "Run every sheet in this engine: lite (HTML forms, no JavaScript) or webkit (WebKitGTK); default"
            + " the engine that recorded it (the entries' _engine), lite for a capture that names none."
        return option
    }()

    /// `--redact` of replay and import-har: the same vocabulary as run's `--har-redact`.
    static let redactOption = OptionSpec.option(
        "redact", value: "kinds",
        help:
            "Hide the capture's secrets as soon as it is read, as run's --har-redact does: the default"
            + " ones (\(Redaction.defaultKindNames.joined(separator: ", "))) and any of"
            + " \((Redaction.optionalKindNames + ["all"]).joined(separator: ", ")) (comma-separated).",
        repeatable: true)

    /// The redaction a comma-separated `--<option>` list asks for (from the default, see
    /// `Redaction.init(list:)`), or nil when the option is not given.
    static func redaction(_ arguments: ParsedArguments, option: OptionSpec) throws -> Redaction? {
        let lists = arguments.allValues(option)
        guard !lists.isEmpty else { return nil }
        do throws(Redaction.UnknownKind) {
            return try Redaction(list: lists)
        } catch {
            throw UsageError("The value is invalid for '--\(option.long) <kinds>': \(error)")
        }
    }

    /// Reads a capture, redacted as `--redact` asks; a file that is not HAR exits 2.
    static func loadCapture(_ path: String, _ arguments: ParsedArguments) throws -> HARCapture {
        let redaction = try redaction(arguments, option: redactOption)
        let capture: HARCapture
        do throws(HARError) {
            capture = try HARImporter.load(path: path)
        } catch {
            throw CommandFailure("\(error)", exitCode: .invalidInput)
        }
        guard let redaction else { return capture }
        return capture.redacted(redaction)
    }
}

extension SignInSimCLI {
    /// The browsers of a replay of `capture` (import-har's too): `--browser` forces an engine;
    /// without it each sheet runs in the engine that recorded it. The WebKit engine is located
    /// only when a sheet will run in it (`CaptureReplay.needsWebKit`), and a missing one is exit
    /// 2 with the engine's message.
    static func replayBrowsers(
        _ arguments: ParsedArguments, capture: HARCapture, options: CaptureReplay.Options, context: CLIContext
    ) throws -> BrowserSelection {
        var options = options
        options.browsers = BrowserSelection(requested: try requestedBrowser(arguments))
        guard CaptureReplay.needsWebKit(capture, options: options) else { return options.browsers }
        do {
            options.browsers.webKit = try WebKitEngine.locate(environment: context.environment)
            return options.browsers
        } catch {
            throw CommandFailure(
                "\(options.file): the capture's sheets run in webkit: \(error.message)",
                exitCode: .invalidInput)
        }
    }
}

extension SignInSimCLI {
    static let replayCommand = CommandSpec(
        name: "replay",
        abstract: "Replay a HAR capture from launch against the simulated SDK and report where it diverges.",
        discussion: """
            Reads a HAR 1.2 capture (Chrome, Firefox, mitmproxy, Charles, Proxyman, or signinsim's
            own --har-dir files) of any OpenID provider, and plays its story on a simulated phone
            whose app and browser sheets are answered from the capture: the launch, each web
            sign-in with what the person typed and pressed, refreshes (a race as concurrent
            calls), userinfo, sign-out, Sign in with Apple, at the recorded times. A capture that
            signinsim run wrote records its steps (one HAR page per step) and its SDK profiles,
            and the replay plays those; any other capture is read from its traffic, with each
            endpoint found by its role (from the capture's discovery document, or from what
            the requests carry).

            The replayed app draws its own state, nonce and PKCE values: the recorded answers
            are given with the app's values in place of the recorded ones, and an ID token that
            carries the nonce is signed again by a replay key that the key sets it fetches hold
            (the recorded tokens are audited against the recorded keys, apart).

            The report has one line per recorded exchange (numbered from 1 as the file's
            entries): who sent it, what was recorded (status, OAuth error, HTML page and its
            error note, redirect, or no answer), what the replayed app did with it, and where
            they differ; then the requests only the replay made, the steps with their recorded
            and replayed outcomes, and the recorded ID tokens' audit. Exits 0 when the app
            behaves as recorded, 1 when it diverges, 2 when the file cannot be replayed (not
            HAR, or no OAuth traffic at all).

            Requests match on method, origin, path, and query, form or JSON parameters in any
            order, once the app's random values are put back to the recorded ones; state, nonce,
            code_challenge, code_verifier, DPoP proofs, jti and timestamps count by presence
            only (--ignore-value and --match-value move a parameter between the two). A recorded
            answer given to a request whose refresh token, code, code_verifier, token or
            id_token_hint differs is flagged.

            Each sheet runs in the engine that recorded it: webkit when the capture's browser
            entries say so (_engine, which signinsim writes), lite for captures that name no
            engine; --browser lite|webkit runs every sheet in the one it names.

            --mode sequential serves entries in recorded order whatever the request carries
            (discovery and key sets by matching); --mode new-episodes sends what the capture
            lacks to the endpoint of the same role at an issuer: an embedded issuer started for
            the replay with the capture's clients registered, or --new-episodes-issuer URL.
            """,
        options: [
            ReplayOptions.sdkProfile, ReplayOptions.mode, ReplayOptions.format, ReplayOptions.inferStory,
            ReplayOptions.ignoreValue, ReplayOptions.matchValue, ReplayOptions.newEpisodesIssuer,
            redactOption,
            browserReplayOption, ReplayOptions.html,
        ],
        arguments: [.argument("capture", help: "The HAR file.")],
        run: { arguments, context in
            guard let path = arguments.positional(0) else { throw UsageError("a capture file is required") }
            if let html = arguments.value(ReplayOptions.html) {
                do throws(ReportDestination.Unwritable) {
                    try ReportDestination.file(option: ReplayOptions.html.long, path: html).check()
                } catch {
                    throw CommandFailure("\(error); nothing was replayed", exitCode: .invalidInput)
                }
            }
            var options = CaptureReplay.Options()
            options.file = path
            if let profile = arguments.value(ReplayOptions.sdkProfile) {
                do throws(SignInError) {
                    _ = try BehaviorProfile(named: profile)
                } catch {
                    throw UsageError("The value is invalid for '--sdk-profile <name>': \(error.message)")
                }
                options.profile = profile
            }
            if let mode = arguments.value(ReplayOptions.mode).flatMap(ReplayMode.init(rawValue:)) {
                options.mode = mode
            }
            options.infersStory = arguments.flag(ReplayOptions.inferStory)
            for name in arguments.allValues(ReplayOptions.ignoreValue) {
                options.matching.ignoredValues.insert(name.lowercased())
            }
            for name in arguments.allValues(ReplayOptions.matchValue) {
                options.matching.ignoredValues.remove(name.lowercased())
            }
            if let url = arguments.value(ReplayOptions.newEpisodesIssuer) {
                guard options.mode == .newEpisodes else {
                    throw UsageError("--new-episodes-issuer needs --mode new-episodes")
                }
                options.newEpisodes = .issuer(url)
            }
            let capture = try loadCapture(path, arguments)
            options.browsers = try replayBrowsers(
                arguments, capture: capture, options: options, context: context)
            let report: ReplayReport
            var comparison: ReplayComparison?
            do throws(CaptureReplay.Failure) {
                if arguments.value(ReplayOptions.html) != nil {
                    let run = try await CaptureReplay.runComparing(capture, options: options)
                    (report, comparison) = (run.report, run.comparison)
                } else {
                    report = try await CaptureReplay.run(capture, options: options)
                }
            } catch {
                throw CommandFailure("\(path): \(error.description)", exitCode: .invalidInput)
            }
            if let html = arguments.value(ReplayOptions.html), let comparison {
                let page = try replayPage((report, comparison), arguments: arguments)
                try ReportDestination.write(page, to: html)
            }
            if arguments.value(ReplayOptions.format) == "json" {
                context.writeOut(report.json.prettyPrinted() + "\n")
            } else {
                context.writeOut(report.text)
            }
            return report.matches ? .success : .failure
        })
}

extension SignInSimCLI {
    /// The options of `replay`, besides `--redact` and `--browser`.
    enum ReplayOptions {
        /// `--sdk-profile <name>`.
        static let sdkProfile = OptionSpec.option(
            "sdk-profile", value: "name",
            help:
                "The SDK behaviour profile of every app (default, strict, naive, persist-late, …; see"
                + " scenarios/README.md). Default: the profiles the capture's run names, else default.")
        /// `--mode <mode>`.
        static let mode = OptionSpec.option(
            "mode", value: "mode", help: "strict (default), new-episodes or sequential.",
            allowed: ReplayMode.allCases.map(\.rawValue))
        /// `--format <format>`.
        static let format = OptionSpec.option(
            "format", value: "format", help: "text (default) or json.", allowed: ["text", "json"])
        /// `--infer-story`.
        static let inferStory = OptionSpec.flag(
            "infer-story", help: "Read the story from the traffic even when the capture records its steps.")
        /// `--ignore-value <name>`, repeatable.
        static let ignoreValue = OptionSpec.option(
            "ignore-value", value: "name",
            help:
                "A request parameter compared by presence only, as state, nonce and the other"
                + " volatile ones are (repeatable).",
            repeatable: true)
        /// `--match-value <name>`, repeatable.
        static let matchValue = OptionSpec.option(
            "match-value", value: "name",
            help: "A volatile parameter whose value must match after all (repeatable).", repeatable: true)
        /// `--new-episodes-issuer <url>`.
        static let newEpisodesIssuer = OptionSpec.option(
            "new-episodes-issuer", value: "url",
            help:
                "With --mode new-episodes, the issuer requests the capture lacks go to (default: an"
                + " embedded issuer started for the replay).")
        /// `--html <file>`.
        static let html = OptionSpec.option(
            "html", value: "file",
            help:
                "Also write a self-contained HTML page with the recorded story and the replayed one side by"
                + " side, divergences marked on both (atomically).")
    }

    /// The options of `import-har`, besides `--redact` and `--browser`.
    enum ImportHAROptions {
        /// `--sdk-profile <name>`.
        static let sdkProfile = OptionSpec.option(
            "sdk-profile", value: "name",
            help: "The SDK profile the scenario runs with (default: the one the capture shows).")
        /// `--name <name>`.
        static let name = OptionSpec.option(
            "name", value: "name", help: "The scenario's name (default: Reproduction of FILE).")
        /// `--no-check`.
        static let noCheck = OptionSpec.flag(
            "no-check", help: "Print the derived scenario without running it.")
    }

    /// The side-by-side page of a replay, its exchanges redacted as `--redact` says (the
    /// default kinds when it is not given: the page is made to be shared).
    static func replayPage(
        _ run: (report: ReplayReport, comparison: ReplayComparison), arguments: ParsedArguments
    ) throws -> [UInt8] {
        let redaction = try redaction(arguments, option: redactOption) ?? .default
        var recorded = run.comparison.recorded
        var replayed = run.comparison.replayed
        recorded.exchanges = redaction.apply(to: recorded.exchanges)
        replayed.exchanges = redaction.apply(to: replayed.exchanges)
        let report = run.report
        var divergences = report.lines.compactMap { line in
            line.divergence.map { "entry \(line.entry) (\(line.method) \(line.path)): \($0)" }
        }
        divergences += report.extras.filter(\.divergence).map {
            "replayed request \($0.number) (\($0.method) \($0.path)): \($0.outcome)"
        }
        divergences += report.steps.compactMap { step in
            step.divergence.map { "step \(step.number) \(step.name): \($0)" }
        }
        return HTMLReport.renderReplay(
            title: "SignInSim replay of \(report.capture)",
            facts: [
                ("Capture", report.capture + (report.creator.map { " (\($0))" } ?? "")),
                ("Story", report.story), ("SDK profile", report.profile), ("Mode", report.mode),
                ("Issuer", report.issuer),
            ],
            verdict: report.matches ? "the replay behaves as recorded" : "the replay diverges",
            divergences: divergences, recorded: recorded, recordedMarks: run.comparison.recordedMarks,
            replayed: replayed, replayedMarks: run.comparison.replayedMarks,
            commandLine: RunCommand.displayed(arguments))
    }
}

extension SignInSimCLI {
    static let importHARCommand = CommandSpec(
        name: "import-har",
        abstract: "Derive from a HAR capture a scenario that ends as the capture ends, and print it.",
        discussion: """
            Reads a HAR 1.2 capture of any OpenID provider and prints a scenario (YAML) that
            reproduces it against the embedded issuer:
              - the client's side is the replay's story (the steps a signinsim run recorded, or
                the ones its traffic shows), each SDK call expecting the outcome it had with the
                recorded answers, and the SDK profile the capture shows (a refresh race is the
                naive strategy, a stale refresh token after a relaunch persist-late, one refused
                and retried at once with the newer token stale-refresh-copy) unless
                --sdk-profile names one; a callback whose code was never exchanged is an app
                that refused it (state_mismatch; when its state is its request's, that cause is
                assumed, and the description says so);
              - the issuer's side is what the capture shows of it: a tenant (the clients, the
                users who signed in with the claims they got, the signing algorithm, lifetimes,
                what a reused refresh token does) and faults armed before the steps that met
                them (ID tokens an app must refuse, a tampered state, server errors and HTML
                error pages, races held so that they overlap).
            The scenario is then run: an error the embedded issuer answers otherwise is armed
            as recorded and the scenario run again. Its description says which capture and
            entries it came from and what was answered as recorded. What it still cannot
            reproduce is printed on standard error by entry, and the exit status is 1.
              signinsim import-har capture.har > scenarios/repro.yaml
            --redact hides the capture's secrets right after reading it, as replay's does.
            The scenario's sheets run in the engine the capture's ran in (browser: webkit when
            its browser entries say _engine: webkit), or the one --browser names; a login page
            the capture shows as a script shell (scripts, no form) makes the tenant's pages
            javascript.
            """,
        options: [
            ImportHAROptions.sdkProfile, ImportHAROptions.name, ImportHAROptions.noCheck, redactOption,
            browserReplayOption,
        ],
        arguments: [.argument("capture", help: "The HAR file.")],
        run: { arguments, context in
            guard let path = arguments.positional(0) else { throw UsageError("a capture file is required") }
            var options = ScenarioDerivation.Options()
            options.file = path
            options.name = arguments.value(ImportHAROptions.name)
            options.checks = !arguments.flag(ImportHAROptions.noCheck)
            if let profile = arguments.value(ImportHAROptions.sdkProfile) {
                do throws(SignInError) {
                    _ = try BehaviorProfile(named: profile)
                } catch {
                    throw UsageError("The value is invalid for '--sdk-profile <name>': \(error.message)")
                }
                options.profile = profile
            }
            let capture = try loadCapture(path, arguments)
            var replay = CaptureReplay.Options()
            replay.file = path
            options.browsers = try replayBrowsers(
                arguments, capture: capture, options: replay, context: context)
            do throws(CaptureReplay.Failure) {
                let derived = try await ScenarioDerivation.derive(capture, options: options)
                context.writeOut(derived.yaml)
                for line in derived.notExpressed {
                    context.writeError("import-har: not reproduced: \(line)\n")
                }
                if derived.passed == false { return .failure }
                return .success
            } catch {
                throw CommandFailure("\(path): \(error.description)", exitCode: .invalidInput)
            }
        })
}
