public import Scenario
public import SignInSDK

extension ExposureMatrix {
    /// Runs every scenario under every profile (`suite` sets jobs, seeds and time limits).
    public static func measure(
        _ scenarios: [Scenario], profiles: [String], suite: ScenarioSuite
    ) async throws(SignInError) -> ExposureMatrix {
        var parsed: [(name: String, profile: BehaviorProfile)] = []
        for name in profiles { parsed.append((name, try BehaviorProfile(named: name))) }
        var runs: [Scenario] = []
        var runFor: [Int: Int] = [:]
        var trials: [Trial] = []
        for profile in parsed {
            for scenario in scenarios {
                let key = ScenarioKey(file: scenario.location.file, name: scenario.name)
                if let variant = variant(of: scenario, profile: profile.profile) {
                    runFor[trials.count] = runs.count
                    runs.append(variant)
                    trials.append(Trial(profile: profile.name, scenario: key, verdict: .notExposed))
                } else {
                    trials.append(
                        Trial(
                            profile: profile.name, scenario: key, verdict: .notApplicable,
                            reason: "no app of the scenario has the default profile to swap"))
                }
            }
        }
        let results = await suite.run(runs) { _ in }
        for (trial, run) in runFor {
            guard results.indices.contains(run) else { continue }
            let result = results[run]
            switch result.status {
            case .passed: break
            case .failed, .interrupted:
                trials[trial].verdict = .exposed
                trials[trial].reason =
                    result.failure.map { "\($0.step) at \($0.location): \($0.message)" }
                    ?? result.status.rawValue
            case .skipped:
                trials[trial].verdict = .notApplicable
                trials[trial].reason = "not run: the run was stopped"
            }
        }
        return ExposureMatrix(profiles: parsed.map(\.name), columns: columns(of: scenarios), trials: trials)
    }
}
