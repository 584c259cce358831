import Scenario
import SignInSDK
import Testing

/// The matrix's rules, without running anything.
@Suite struct ExposureMatrixTests {
    static func scenario(_ file: String, profiles: [String]) throws -> Scenario {
        let apps = profiles.enumerated().map {
            "  - {id: com.example.app\($0.offset), profile: \($0.element)}"
        }
        let text = "name: \(file)\napps:\n\(apps.joined(separator: "\n"))\nsteps:\n  - launch\n"
        return try ScenarioLoader.parse(Array(text.utf8), file: "field-bugs/\(file)")
    }

    @Test func columnsGroupScenariosByTheirFieldBugNumber() throws {
        let scenarios = try ["07-a.yaml", "07-b.yaml", "13-c.yaml", "extra.yaml"].map {
            try Self.scenario($0, profiles: ["default", "naive"])
        }
        let columns = ExposureMatrix.columns(of: scenarios)
        #expect(columns.map(\.id) == ["7", "13", "extra.yaml"])
        #expect(columns[0].scenarios.map(\.file) == ["field-bugs/07-a.yaml", "field-bugs/07-b.yaml"])
    }

    @Test func theDefaultAppIsTheOneThatGetsTheProfile() throws {
        let scenario = try Self.scenario("01-x.yaml", profiles: ["naive", "default"])
        let variant = try #require(
            ExposureMatrix.variant(of: scenario, profile: try BehaviorProfile(named: "strict")))
        #expect(variant.apps.map(\.profile.description) == ["naive", "strict"])
        let noDefault = try Self.scenario("02-x.yaml", profiles: ["naive"])
        #expect(ExposureMatrix.variant(of: noDefault, profile: BehaviorProfile()) == nil)
    }

    @Test func aBugIsExposedWhenAnyOfItsScenariosIs() {
        let (a, b) = (ScenarioKey(file: "07-a.yaml", name: "a"), ScenarioKey(file: "07-b.yaml", name: "b"))
        let column = ExposureMatrix.Column(id: "7", scenarios: [a, b])
        let matrix = ExposureMatrix(
            profiles: ["p", "q", "r"], columns: [column],
            trials: [
                .init(profile: "p", scenario: a, verdict: .notExposed),
                .init(profile: "p", scenario: b, verdict: .exposed),
                .init(profile: "q", scenario: a, verdict: .notExposed),
                .init(profile: "q", scenario: b, verdict: .notApplicable),
                .init(profile: "r", scenario: a, verdict: .notApplicable),
                .init(profile: "r", scenario: b, verdict: .notApplicable),
            ])
        #expect(matrix.verdict(profile: "p", column: column) == .exposed)
        #expect(matrix.verdict(profile: "q", column: column) == .notExposed)
        #expect(matrix.verdict(profile: "r", column: column) == .notApplicable)
        #expect(matrix.exposures(of: "p").map(\.id) == ["7"])
        #expect(matrix.exposures(of: "q").isEmpty)
    }
}
