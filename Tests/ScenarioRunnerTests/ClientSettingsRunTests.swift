import Scenario
import ScenarioRunner
import SignInSDK
import Testing

/// Client registration settings as the runner hands them to the SDK.
@Suite struct ClientSettingsRunTests {
    /// The scenario format refuses the same extra authorization parameters as the SDK, so a
    /// scenario never loads with a parameter that would fail at launch.
    @Test func reservedParameterListsAgree() {
        #expect(Set(ReservedAuthorizationParameters.names.keys) == Set(SignInOptions.reservedParameters.keys))
    }

    /// A key that is not a key makes the scenario fail at setup, naming the app.
    @Test func unusableKeyFailsAtSetup() async throws {
        let scenario = try ScenarioLoader.parse(
            Array(
                """
                name: bad key
                apps: [{id: com.example.app, client_jwk: {kty: EC, crv: P-256, x: a, y: b, d: c}}]
                steps: [launch]
                """.utf8), file: "key.yaml")
        let run = await ScenarioRunner.run(scenario, seed: 1)
        #expect(run.result.status == .failed)
        #expect(run.result.failure?.step == "setup")
        #expect(
            run.result.failure?.message.contains("app com.example.app") == true,
            "\(String(describing: run.result.failure))")
    }

    /// A user scripted to deny consent fails clearly when the issuer shows no consent page,
    /// instead of signing in.
    @Test func denyWithoutConsentPageFails() async throws {
        let scenario = try ScenarioLoader.parse(
            Array(
                """
                name: nothing to deny
                apps: [{shared_session: true, prompt: omit}]
                steps:
                  - launch
                  - signIn
                  - signIn: {consent: deny}
                """.utf8), file: "deny.yaml")
        let run = await ScenarioRunner.run(scenario, seed: 1)
        #expect(run.result.status == .failed)
        #expect(run.result.failure?.location.line == 6)
        #expect(
            run.result.failure?.message.contains("consent_not_shown") == true,
            "\(String(describing: run.result.failure))")
    }
}
