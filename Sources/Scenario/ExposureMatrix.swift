public import SignInSDK

/// Which SDK behaviour profiles are exposed to which field bugs: every field-bug scenario run
/// again with its correct app (the one with the default profile) given each profile in turn.
///
/// A field-bug scenario puts a correct app and a faulty one side by side and checks that the
/// correct one comes through. Given another profile, the correct app either still comes
/// through (the profile is **not exposed** to that bug) or fails a step or check (it is
/// **exposed**: the failure is the field bug, or one like it, happening to it; a run that hangs
/// until its time limit counts too). A scenario with no app of the default profile has nothing
/// to swap: **not applicable**. A field bug with several scenarios is exposed when any of them
/// is.
public struct ExposureMatrix: Sendable {
    public init(profiles: [String], columns: [Column], trials: [Trial]) {
        self.profiles = profiles
        self.columns = columns
        self.trials = trials
    }

    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        case exposed
        case notExposed = "not_exposed"
        case notApplicable = "not_applicable"
    }

    /// A field bug: the scenarios that show it.
    public struct Column: Sendable, Hashable {
        /// `1`, `13`: the number the scenario files start with, or the file for others.
        public var id: String
        public var scenarios: [ScenarioKey]

        public init(id: String, scenarios: [ScenarioKey]) {
            self.id = id
            self.scenarios = scenarios
        }
    }

    /// One scenario under one profile.
    public struct Trial: Sendable, Hashable {
        public var profile: String
        public var scenario: ScenarioKey
        public var verdict: Verdict
        /// Why: the failed step and its message, or why it does not apply.
        public var reason: String?

        public init(profile: String, scenario: ScenarioKey, verdict: Verdict, reason: String? = nil) {
            self.profile = profile
            self.scenario = scenario
            self.verdict = verdict
            self.reason = reason
        }
    }

    public var profiles: [String]
    public var columns: [Column]
    public var trials: [Trial]

    /// The verdict of a profile for a field bug: exposed if any of its scenarios is, not
    /// applicable if all are, not exposed otherwise.
    public func verdict(profile: String, column: Column) -> Verdict {
        let verdicts = trials.filter { $0.profile == profile && column.scenarios.contains($0.scenario) }.map(
            \.verdict)
        if verdicts.contains(.exposed) { return .exposed }
        if !verdicts.isEmpty, verdicts.allSatisfy({ $0 == .notApplicable }) { return .notApplicable }
        return .notExposed
    }

    /// The field bugs a profile is exposed to.
    public func exposures(of profile: String) -> [Column] {
        columns.filter { verdict(profile: profile, column: $0) == .exposed }
    }

    /// Columns by the number a field-bug file starts with (`07-cancel-…` is bug 7), in order;
    /// a file without one is a column of its own.
    public static func columns(of scenarios: [Scenario]) -> [Column] {
        var columns: [Column] = []
        for scenario in scenarios {
            let name =
                scenario.location.file.split(separator: "/").last.map(String.init) ?? scenario.location.file
            let digits = name.prefix { $0.isNumber }
            let id = digits.isEmpty ? name : String(Int(digits) ?? 0)
            let key = ScenarioKey(file: scenario.location.file, name: scenario.name)
            if let index = columns.firstIndex(where: { $0.id == id }) {
                columns[index].scenarios.append(key)
            } else {
                columns.append(Column(id: id, scenarios: [key]))
            }
        }
        return columns
    }

    /// The scenario with its correct app given `profile`; nil when it has no app of the
    /// default profile.
    public static func variant(of scenario: Scenario, profile: BehaviorProfile) -> Scenario? {
        guard let subject = scenario.apps.firstIndex(where: { $0.profile == BehaviorProfile() }) else {
            return nil
        }
        var variant = scenario
        variant.apps[subject].profile = profile
        return variant
    }
}
