import Device
import SignInSDK
import WorldVocabulary

/// The names a scenario may use, each list taken from the declaration the loader reads it
/// with: what `signinsim list --steps` (and `--expectations`, `--profiles`, `--faults`,
/// `--errors`, `--phases`) prints, and what the documentation is checked against.
public enum ScenarioVocabulary {
    /// Every step, in the order the scenario documentation lists them.
    public static var steps: [String] { StepKind.allCases.map(\.name) }
    /// The checks an `expect` step takes.
    public static var expectations: [String] { ExpectationKey.allCases.map(\.rawValue) }
    /// The SDK behaviour profile names, which join with `+`.
    public static var profiles: [String] { BehaviorProfile.names }
    /// The faults the embedded issuer can be told to show.
    public static var faults: [String] { IssuerFault.allCases.map(\.rawValue) }
    /// The outcomes a step's `error:` may allow: `none` (success) and the SDK's error codes.
    public static var outcomes: [String] { CallOutcome.names }
    /// The app lifecycle phases `expect: {app_phase: …}` names.
    public static var appPhases: [String] { AppPhase.allCases.map(\.rawValue) }
}
