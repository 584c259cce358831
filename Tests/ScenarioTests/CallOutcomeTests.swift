import Scenario
import SignInSDK
import Testing

/// How an SDK call's outcome is named: in a scenario (`none` for success) and in a run's
/// reports (`ok`, as every recorded HAR page's `_outcome.call` has it).
@Suite struct CallOutcomeTests {
    /// Reports keep the names recordings already hold: `ok` for success, else the scenario's.
    @Test("reports name success ok, and an error code or finding as a scenario does")
    func reportedNames() {
        #expect(CallOutcome.success.name == "none")
        #expect(CallOutcome.success.reportedName == "ok")
        #expect(CallOutcome.failure(.canceledLogin).reportedName == "canceled_login")
        #expect(CallOutcome.finding(.consentRefusalIgnored).reportedName == "consent_refusal_ignored")
    }
}
