import Foundation
import TestSupport
import Testing

@testable import SignInSimCLI

/// `-e KEY=VALUE` and `-e KEY` of `run`, `validate` and `list` (issue 28: a secret need not be
/// on the command line).
@Suite("Scenario variables from -e")
struct ScenarioFilesTests {
    static let scenario = """
        name: takes a password
        env: {PASSWORD: from-the-file, USER: alice@example.com}
        steps:
          - launch
          - signIn: {username: "${USER}", password: "${PASSWORD}"}
        """

    static func loaded(_ settings: [String], environment: [String: String]) throws -> ScenarioFiles {
        let folder = try TemporaryDirectory()
        let file = try folder.write(scenario, named: "a.yaml")
        var arguments = ParsedArguments(
            commandPath: ["signinsim", "validate"], declaring: SignInSimCLI.validateCommand.options)
        for setting in settings { arguments.record(setting, for: SignInSimCLI.envOption) }
        arguments.positionals = [file]
        return try ScenarioFiles(arguments, environment: environment)
    }

    @Test("-e KEY takes the value of the environment variable KEY")
    func fromEnvironment() throws {
        let loaded = try Self.loaded(
            ["PASSWORD"], environment: ["PASSWORD": "s3cret=yes", "USER": "mallory"])
        #expect(loaded.errors.isEmpty)
        let env = try #require(loaded.scenarios.first?.env)
        #expect(env["PASSWORD"] == "s3cret=yes")
        #expect(env["USER"] == "alice@example.com", "only the variables named are taken")
    }

    @Test("-e KEY=VALUE keeps working, and the last setting of a key wins")
    func explicitValues() throws {
        let loaded = try Self.loaded(
            ["PASSWORD=a=b", "USER=bob@example.com", "PASSWORD"], environment: ["PASSWORD": "env"])
        let env = try #require(loaded.scenarios.first?.env)
        #expect(env["PASSWORD"] == "env")
        #expect(env["USER"] == "bob@example.com")
        let empty = try Self.loaded(["PASSWORD="], environment: [:])
        #expect(empty.scenarios.first?.env["PASSWORD"] == "")
    }

    @Test(
        "a variable the environment lacks, an empty key or an empty setting is a usage error",
        arguments: [
            (
                "PASSWORD",
                "'-e PASSWORD' takes the value of the environment variable PASSWORD, which is not set"
            ),
            ("=x", "The value '=x' is invalid for '-e <KEY[=VALUE]>': expected KEY or KEY=VALUE"),
            ("", "The value '' is invalid for '-e <KEY[=VALUE]>': expected KEY or KEY=VALUE"),
        ])
    func refused(setting: String, message: String) {
        #expect(throws: UsageError.self) { try Self.loaded([setting], environment: ["OTHER": "x"]) }
        do {
            _ = try ScenarioFiles.override(setting, environment: ["OTHER": "x"])
            Issue.record("expected a usage error for \(setting)")
        } catch {
            #expect(error.message == message)
        }
    }

    /// Through the command: the missing variable is named on standard error with exit 64,
    /// the usage status of every other mistake on the command line.
    @Test("validate -e NAME with NAME unset exits 64 naming it")
    func missingVariableExit() async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write(Self.scenario, named: "a.yaml")
        let streams = CapturedStreams()
        let status = await SignInSimCLI.run(
            ["validate", file, "-e", "SIGNINSIM_TEST_UNSET"], context: streams.context(environment: [:]))
        #expect(status == 64)
        #expect(streams.standardError.contains("environment variable SIGNINSIM_TEST_UNSET, which is not set"))
        let set = CapturedStreams()
        let valid = await SignInSimCLI.run(
            ["validate", file, "-e", "PASSWORD"], context: set.context(environment: ["PASSWORD": "x"]))
        #expect(valid == 0, "\(set.standardError)")
        #expect(set.standardOutput == "1 valid, 0 invalid\n")
    }

    /// End to end: the password the issuer accepts reaches the sign-in only from the
    /// environment of the `signinsim` process.
    @Test("run -e PASSWORD signs in with the password from the environment")
    func runTakesTheEnvironment() async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write(Self.scenario, named: "a.yaml")
        let accepted = try await SignInSimBinary.run(
            ["run", file, "-e", "PASSWORD"], environment: ["PASSWORD": "alice-password", "NO_COLOR": "1"])
        #expect(accepted.status == 0, "\(accepted.standardOutput)\(accepted.standardError)")
        let refused = try await SignInSimBinary.run(
            ["run", file], environment: ["PASSWORD": "alice-password"])
        #expect(refused.status == 1, "without -e the file's own value is used: \(refused.standardOutput)")
    }
}
