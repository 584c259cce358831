import Foundation
import JSON
import TestSupport
import Testing

/// Redaction through the built binary: `run --har-redact` on record, `replay --redact` and
/// `import-har --redact` on import, one vocabulary, and a redacted capture that still replays.
@Suite("signinsim redaction")
struct RedactionCommandTests {
    /// Runs the race (field bug 1: the naive SDK signed out by its own refresh race) and returns the folder and the path of the HAR written with `options`.
    static func record(_ options: [String]) async throws -> (TemporaryDirectory, String) {
        let folder = try TemporaryDirectory()
        _ = try folder.write(try TestCaptures.raceScenario, named: "race.yaml")
        let result = try await SignInSimBinary.run(
            ["run", folder.url.path + "/race.yaml", "--har-dir", folder.url.path + "/har"] + options)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let hars = try FileManager.default.contentsOfDirectory(atPath: folder.url.path + "/har")
        return (folder, folder.url.path + "/har/" + (hars.first ?? "missing.har"))
    }

    /// The refresh tokens and passwords of a HAR: token response members and form parameters.
    static func secrets(inHAR path: String) throws -> Set<String> {
        let har = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        var secrets = Set<String>()
        for entry in har["log"]?["entries"]?.arrayValue ?? [] {
            for param in entry["request"]?["postData"]?["params"]?.arrayValue ?? [] {
                if ["refresh_token", "password"].contains(param["name"]?.stringValue),
                    let value = param["value"]?.stringValue
                {
                    secrets.insert(value)
                }
            }
            if let text = entry["response"]?["content"]?["text"]?.stringValue,
                let token = (try? JSONValue.parse(text))?["refresh_token"]?.stringValue
            {
                secrets.insert(token)
            }
        }
        return secrets
    }

    @Test("run --har-redact refresh-tokens writes numbered placeholders; the capture replays as recorded")
    func recordRedactedAndReplay() async throws {
        let (_, har) = try await Self.record(["--har-redact", "refresh-tokens"])
        #expect(
            try Self.secrets(inHAR: har) == [
                "<REDACTED:password:1>", "<REDACTED:refresh_token:1>", "<REDACTED:refresh_token:2>",
            ])

        // The capture names its run's profile (naive): the replay plays it.
        let naive = try await SignInSimBinary.run(["replay", har])
        #expect(naive.status == 0, "\(naive.standardOutput)\(naive.standardError)")
        #expect(naive.standardOutput.contains("session_expired"))
        #expect(naive.standardOutput.contains("the app behaves as recorded"))

        let correct = try await SignInSimBinary.run(["replay", har, "--sdk-profile", "default"])
        #expect(correct.status == 1, "\(correct.standardOutput)\(correct.standardError)")
        #expect(correct.standardOutput.contains("the app diverges from the recording"))

        let scenario = try await SignInSimBinary.run(["import-har", har])
        #expect(scenario.status == 0, "\(scenario.standardError)")
        #expect(scenario.standardOutput.contains("  - parallel:"))
    }

    @Test("replay and import-har --redact hide a field capture's secrets and still reproduce it")
    func redactOnImport() async throws {
        let (_, har) = try await Self.record(["--no-redact"])
        let secrets = try Self.secrets(inHAR: har)
        #expect(secrets.contains("alice-password"))
        #expect(secrets.count == 3, "the password and two refresh tokens: \(secrets)")
        let replay = try await SignInSimBinary.run(["replay", har, "--redact", "all"])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(replay.standardOutput.contains("the app behaves as recorded"))
        // The derived user's password is the placeholder the person is then made to type.
        let imported = try await SignInSimBinary.run([
            "import-har", har, "--name", "repro", "--redact", "refresh-tokens",
        ])
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("password: <REDACTED:password:1>"))
        for output in [replay, imported] {
            for secret in secrets {
                #expect(!(output.standardOutput + output.standardError).contains(secret), "\(secret) printed")
            }
        }
    }

    @Test(
        "an unknown kind, or --no-redact with --har-redact, is a usage error",
        arguments: [
            ["replay", "x.har", "--redact", "refresh-tokens,bogus"],
            ["import-har", "x.har", "--redact", "tokens"],
            ["run", "--har-redact", "everything"], ["run", "--no-redact", "--har-redact", "all"],
        ])
    func usage(arguments: [String]) async throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write(try TestCaptures.raceScenario, named: "race.yaml")
        let paths = arguments[0] == "run" ? [folder.url.path + "/race.yaml"] : []
        let result = try await SignInSimBinary.run(arguments + paths)
        #expect(result.status == 64, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardError.hasPrefix("Error: "))
    }
}
