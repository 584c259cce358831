import Scenario
import ScenarioRunner
import Testing

/// `expect: {login_forms: N}` counts the login forms the person submitted, whatever path the
/// issuer's form posts to: the check behind `smoke/sign-out-at-issuer`.
@Suite struct LoginFormsExpectationTests {
    private static func run(_ steps: String) async throws -> ScenarioResult {
        let scenario = try ScenarioLoader.parse(
            Array(
                """
                name: login forms
                apps: [{shared_session: true, post_logout_redirect_uri: "com.example.app://auth/logout"}]
                steps:
                \(steps)
                """.utf8), file: "forms.yaml")
        return await ScenarioRunner.run(scenario, seed: 1).result
    }

    @Test("a refused password and its retry are two forms; SSO in a shared session adds none")
    func countsRetriesAndSkipsSSO() async throws {
        let result = try await Self.run(
            """
              - launch
              - signIn: {password: wrong, retry: [{password: alice-password}]}
              - expect: {login_forms: 2}
              - signOut: {end_session: false}
              - signIn
              - expect: {login_forms: 2}
              - signOut
              - signIn
              - expect: {login_forms: 3}
            """)
        #expect(result.status == .passed, "\(String(describing: result.failure))")
    }

    @Test("a wrong count fails at its line with expected and actual")
    func wrongCountFails() async throws {
        let result = try await Self.run(
            """
              - launch
              - signIn
              - expect: {login_forms: 2}
            """)
        #expect(result.status == .failed)
        #expect(result.failure?.location.line == 6)
        #expect(
            result.failure?.expected == "2" && result.failure?.actual == "1",
            "\(String(describing: result.failure))")
    }

    @Test("a negative count is refused where it is written")
    func negativeRefused() throws {
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.parse(
                Array("name: n\nsteps: [launch, {expect: {login_forms: -1}}]\n".utf8), file: "n.yaml")
        }
    }
}
