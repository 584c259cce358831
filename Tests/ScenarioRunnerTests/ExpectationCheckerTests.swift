import AppleID
import SignInSDK
import Testing

@testable import ScenarioRunner

/// `apple_credential` compares the simulated Apple's state with the one a scenario names, which
/// is the SDK's `AppleIDCredentialState`: each of Apple's four states is told as itself.
@Suite struct ExpectationCheckerTests {
    @Test("each state at the simulated Apple is the SDK's state of the same name")
    func appleStates() {
        #expect(AppleCredentialState.allCases.count == AppleIDCredentialState.allCases.count)
        for state in AppleCredentialState.allCases {
            #expect(AppleIDCredentialState(state).rawValue == state.rawValue)
        }
    }
}
