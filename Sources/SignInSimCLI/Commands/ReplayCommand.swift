import Recordings
import Replay
import ScenarioReports
import SignInSDK

extension SignInSimCLI {
    /// `--redact` of replay and import-har: the same vocabulary as run's `--har-redact`.
    static let redactOption = OptionSpec.option(
        "redact", value: "kinds",
        help:
            "Hide the capture's secrets as soon as it is read, as run's --har-redact does: the default"
            + " ones (passwords, client-secrets, basic-credentials, private-keys) and any of refresh-tokens,"
            + " code-verifiers, all (comma-separated).",
        repeatable: true)

    /// The redaction a comma-separated `--<option>` list asks for (from the default, see
    /// `Redaction.init(list:)`), or nil when the option is not given.
    static func redaction(_ arguments: ParsedArguments, option: String) throws -> Redaction? {
        let lists = arguments.allValues(option)
        guard !lists.isEmpty else { return nil }
        do throws(Redaction.UnknownKind) {
            return try Redaction(list: lists)
        } catch {
            throw UsageError("The value is invalid for '--\(option) <kinds>': \(error)")
        }
    }

    /// Reads a capture, redacted as `--redact` asks; a file that is not HAR exits 2.
    static func loadCapture(_ path: String, _ arguments: ParsedArguments) throws -> HARCapture {
        let redaction = try redaction(arguments, option: "redact")
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
    static let replayCommand = CommandSpec(
        name: "replay",
        abstract: "Replay a HAR capture against the simulated SDK and report where it diverges.",
        discussion: """
            Reads a HAR 1.2 capture (Chrome, mitmproxy, Charles, Proxyman, or signinsim's own
            --har-dir files), puts the simulated app where the captured app was right after it
            signed in (the session of the capture's first code exchange; the web sign-in itself
            is not replayed), and makes it do what the capture shows it doing at the recorded
            times: refreshes (overlapping ones at once), userinfo, sign-out. Requests are served
            from the capture. Prints what the app did, the requests only one side made, calls out
            of recorded order, and whether each recorded ID token verifies against the recorded
            keys at the recorded time. Exits 0 when the app behaves as recorded, 1 when it
            diverges, 2 when the file cannot be replayed.

            A redacted capture replays like the original: the app is handed a placeholder such
            as <REDACTED:refresh_token:1> as its refresh token and presents it back, and a
            recorded password or client secret that is a placeholder matches whatever the app
            sends. --redact refresh-tokens hides the secrets of a capture from the field before
            anything else reads it.

            Requests match on method, origin, path, and query and form parameters in any order;
            volatile parameters (code, code_verifier, state, nonce, DPoP proofs, jti, timestamps…)
            count by presence only. --ignore-value and --match-value move a parameter between the two.

            --mode new-episodes sends what the capture lacks to an issuer instead of refusing it
            (VCR's new episodes): an embedded issuer started on the replay's clock with the
            capture's client registered, or the one --new-episodes-issuer names. The report lists
            those requests as sent to the issuer.
            """,
        options: [
            .option(
                "sdk-profile", value: "name",
                help: "The SDK behaviour profile (default, naive, persist-late, …; see scenarios/README.md)."),
            .option(
                "mode", value: "mode", help: "strict (default), new-episodes or sequential.",
                allowed: ReplayTransport.Mode.allCases.map(\.rawValue)),
            .option(
                "ignore-value", value: "name",
                help:
                    "A request parameter compared by presence only, as code, state, nonce and the other"
                    + " volatile ones are (repeatable).",
                repeatable: true),
            .option(
                "match-value", value: "name",
                help: "A volatile parameter whose value must match after all (repeatable).", repeatable: true),
            .option(
                "new-episodes-issuer", value: "url",
                help:
                    "With --mode new-episodes, the issuer requests the capture lacks go to (default: an"
                    + " embedded issuer started for the replay)."),
            redactOption,
        ],
        arguments: [.argument("capture", help: "The HAR file.")],
        run: { arguments, context in
            guard let path = arguments.positional(0) else { throw UsageError("a capture file is required") }
            var options = CaptureReplay.Options()
            do throws(SignInError) {
                options.profile = try BehaviorProfile(named: arguments.value("sdk-profile") ?? "default")
            } catch {
                throw UsageError("The value is invalid for '--sdk-profile <name>': \(error.message)")
            }
            if let mode = arguments.value("mode").flatMap(ReplayTransport.Mode.init(rawValue:)) {
                options.mode = mode
            }
            for name in arguments.allValues("ignore-value") {
                options.matching.ignoredValues.insert(name.lowercased())
            }
            for name in arguments.allValues("match-value") {
                options.matching.ignoredValues.remove(name.lowercased())
            }
            if let url = arguments.value("new-episodes-issuer") {
                guard options.mode == .newEpisodes else {
                    throw UsageError("--new-episodes-issuer needs --mode new-episodes")
                }
                options.newEpisodes = .issuer(url)
            }
            let capture = try loadCapture(path, arguments)
            do throws(CaptureReplay.Failure) {
                let report = try await CaptureReplay.run(capture, options: options)
                context.writeOut(report.text)
                return report.matches ? .success : .failure
            } catch {
                throw CommandFailure("\(path): \(error.description)", exitCode: .invalidInput)
            }
        })
}

extension SignInSimCLI {
    static let importHARCommand = CommandSpec(
        name: "import-har",
        abstract: "Derive a scenario from a HAR capture and print it.",
        discussion: """
            Reads a HAR 1.2 capture and prints a scenario (YAML) with the app's calls in recorded
            order: launch, the sign-in, refreshes (a burst presenting one refresh token as a
            parallel block, with the issuer's revocation checked when it answered invalid_grant),
            userinfo and sign-out, time gaps as advance. It runs against the embedded issuer:
            signinsim import-har capture.har --sdk-profile naive > scenarios/repro.yaml
            --redact hides the capture's secrets right after reading it, as replay's does.
            """,
        options: [
            .option("sdk-profile", value: "name", help: "The SDK profile the scenario runs with (default)."),
            .option("name", value: "name", help: "The scenario's name (default: the file's)."),
            redactOption,
        ],
        arguments: [.argument("capture", help: "The HAR file.")],
        run: { arguments, context in
            guard let path = arguments.positional(0) else { throw UsageError("a capture file is required") }
            let profile = arguments.value("sdk-profile") ?? "default"
            do throws(SignInError) {
                _ = try BehaviorProfile(named: profile)
            } catch {
                throw UsageError("The value is invalid for '--sdk-profile <name>': \(error.message)")
            }
            let capture = try loadCapture(path, arguments)
            let name =
                arguments.value("name")
                ?? "Reproduction of \(path.split(separator: "/").last.map(String.init) ?? path)"
            do throws(CaptureReplay.Failure) {
                context.writeOut(try ScenarioDerivation.yaml(from: capture, name: name, profile: profile))
                return .success
            } catch {
                throw CommandFailure("\(path): \(error.description)", exitCode: .invalidInput)
            }
        })
}
