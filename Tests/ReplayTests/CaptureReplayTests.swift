import Recordings
import Replay
import Scenario
import ScenarioRunner
import SignInSDK
import Testing

/// Replaying a capture of field bug 1 (a refresh race that signed the user out): the naive
/// SDK reproduces it request for request, the default SDK diverges and stays signed in.
@Suite struct CaptureReplayTests {
    /// A capture made the way support would get one from the field: the naive app racing two
    /// refreshes against the embedded issuer, every exchange recorded.
    static func raceCapture() async throws -> HARCapture {
        let scenario = try ScenarioLoader.parse(
            Array(
                """
                name: the field
                profile: naive
                steps:
                  - launch
                  - signIn
                  - advance: 1h
                  - parallel:
                      - getAccessToken: {force: true, error: [session_expired, none]}
                      - getAccessToken: {force: true, error: [session_expired, none]}
                """.utf8), file: "field.yaml")
        let outcome = await ScenarioRunner.run(scenario, seed: 21)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        return HARCapture(exchanges: outcome.exchanges)
    }

    @Test("the naive SDK reproduces the recorded race; the default one diverges and stays signed in")
    func raceReplay() async throws {
        let capture = try await Self.raceCapture()
        let naive = try await CaptureReplay.run(
            capture, options: .init(profile: BehaviorProfile(refreshStrategy: .naive)))
        #expect(naive.matches, "\(naive.text)")
        #expect(naive.actions.map(\.what) == ["refresh + refresh"])
        #expect(naive.actions.first?.outcomes.contains("session_expired") == true)
        #expect(naive.tokens.allSatisfy { $0.contains("verifies") }, "\(naive.tokens)")

        let correct = try await CaptureReplay.run(capture)
        #expect(!correct.matches)
        #expect(correct.notMadeByApp.count == 1, "\(correct.text)")
        #expect(correct.actions.first?.outcomes == ["ok", "ok"])
        #expect(correct.signedInAtEnd)
        #expect(correct.text.contains("the app diverges from the recording"))
    }

    @Test("a capture without discovery or without a session cannot be replayed")
    func unusable() async {
        do {
            _ = try await CaptureReplay.run(HARCapture(exchanges: []))
            Issue.record("an empty capture replayed")
        } catch {
            #expect(error.description.contains("no answered discovery request"))
        }
    }
}

/// `import-har`: the race capture becomes a scenario that reproduces the revoked family with
/// the naive SDK and fails with the default one, which does not race.
@Suite struct ScenarioDerivationTests {
    @Test func raceCaptureBecomesAScenario() async throws {
        let capture = try await CaptureReplayTests.raceCapture()
        let naiveYAML = try ScenarioDerivation.yaml(from: capture, name: "repro", profile: "naive")
        #expect(naiveYAML.contains("  - parallel:"))
        #expect(naiveYAML.contains("issuer_refresh_tokens: revoked"))
        #expect(naiveYAML.contains("  - advance: 3600s"))
        let naive = try ScenarioLoader.parse(Array(naiveYAML.utf8), file: "repro.yaml")
        let reproduced = await ScenarioRunner.run(naive, seed: 3)
        #expect(
            reproduced.result.status == .passed,
            "\(naiveYAML)\(String(describing: reproduced.result.failure))")

        let correctYAML = try ScenarioDerivation.yaml(from: capture, name: "repro", profile: "default")
        let correct = try ScenarioLoader.parse(Array(correctYAML.utf8), file: "repro.yaml")
        let outcome = await ScenarioRunner.run(correct, seed: 3)
        #expect(outcome.result.status == .failed)
        #expect(outcome.result.failure?.expected == "all revoked")
    }
}
