import Foundation
import Scenario
import ScenarioRunner
import Simulator
import Testing

/// The runner's Sign in with Apple lifecycle steps: `appleRevokeConsent` and `appleCredential`
/// change the state at the embedded Apple and notify a running app; `getCredentialState`
/// checks the state the app read.
@Suite struct AppleLifecycleRunnerTests {
    static let header = """
        name: apple lifecycle
        device:
          apple_account: {email: kim@example.com, given_name: Kim, family_name: Lee}
        steps:

        """

    static func run(_ steps: String) async throws -> ScenarioRunner.Outcome {
        await ScenarioRunner.run(try ScenarioRunnerTests.scenario(header + steps), seed: 3)
    }

    /// A state other than the one the step names fails the step, with both states.
    @Test("getCredentialState checks the state the app read")
    func stateMismatch() async throws {
        let outcome = try await Self.run(
            """
              - launch
              - signInWithApple
              - getCredentialState: {state: revoked}
            """)
        #expect(outcome.result.status == .failed)
        let failure = try #require(outcome.result.failure)
        #expect(failure.step == "getCredentialState")
        #expect(failure.expected == "revoked" && failure.actual == "authorized")
    }

    /// The steps' notes say whether the app was told: a running app is, one that is not running
    /// is not, and an app the Apple ID never authorized has nothing to stop.
    @Test("appleRevokeConsent notifies the running app only")
    func revokeConsentNotes() async throws {
        let outcome = try await Self.run(
            """
              - launch
              - appleRevokeConsent
              - signInWithApple
              - appleRevokeConsent
              - expect: {session: absent}
              - signInWithApple
              - terminate
              - appleRevokeConsent
              - launch
              - expect: {session: present}
            """)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        let notes = outcome.result.steps.map { $0.note ?? "" }
        #expect(notes[1].contains("had not authorized com.example.app"))
        #expect(notes[3].contains("was sent the revocation notification"))
        #expect(notes[7].contains("is not running"))
    }

    /// Apple's side: revoking what was never authorized fails, a transfer without a team goes to
    /// the default one and then cannot go there again, and `authorized` uses up the first
    /// authorization (no name on the phone).
    @Test("appleCredential changes and their refusals")
    func appleCredentialChanges() async throws {
        let nothing = try await Self.run("  - launch\n  - appleCredential: {state: notFound}\n")
        #expect(nothing.result.failure?.message.contains("there is nothing to end") == true)

        let transfer = try await Self.run(
            """
              - launch
              - signInWithApple
              - appleCredential: {state: transferred}
              - appleCredential: {state: transferred}
            """)
        #expect(
            transfer.result.steps[2].note?.contains("moved to team SIMTEAM002: 1 user(s) transferred") == true
        )
        #expect(transfer.result.failure?.message.contains("already belongs to team SIMTEAM002") == true)

        let elsewhere = try await Self.run(
            """
              - launch
              - appleCredential: {state: authorized}
              - expect: {apple_credential: authorized}
              - signInWithApple
              - expect:
                  requests: [{path: /oauth/token, params: {user_profile: absent}, count: 1}]
            """)
        #expect(elsewhere.result.status == .passed, "\(String(describing: elsewhere.result.failure))")
    }

    /// Against a real issuer there is no simulated Apple to act on: the steps are skipped with
    /// the reason.
    @Test("against an external issuer the Apple steps are skipped")
    func externalIssuerSkips() async throws {
        let elsewhere = try await SimulationWorld.embedded(epoch: Int64(Date().timeIntervalSince1970))
        let issuerURL = try #require(elsewhere.identity?.issuerURL)
        let scenario = try ScenarioRunnerTests.scenario(
            """
            name: external
            issuer: {url: "\(issuerURL)", client_id: com.example.app, redirect_uri: "com.example.app://auth/callback"}
            device:
              apple_account: {email: kim@example.com}
            steps:
              - launch
              - appleRevokeConsent
              - appleCredential: {state: revoked}
            """)
        let outcome = await ScenarioRunner.run(scenario, seed: 1)
        await elsewhere.shutdown()
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        let records = outcome.result.steps
        #expect(records.map(\.outcome) == [.passed, .skipped, .skipped])
        #expect(records[1].note?.contains("needs the embedded issuer's simulated Apple") == true)
        #expect(records[2].note?.contains("needs the embedded issuer's simulated Apple") == true)
    }
}
