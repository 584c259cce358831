import Foundation
import Scenario
import ScenarioRunner
import Testing

/// Rules the bundled library in `scenarios/` keeps, read through the runner's own discovery
/// and loader.
@Suite struct BundledLibraryTests {
    static let libraryFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenarios").path

    static func bundledScenarios() throws -> [Scenario] {
        try ScenarioDiscovery.files(in: [libraryFolder]).map { try ScenarioLoader.load(path: $0) }
    }

    /// Whether a step, or any step inside it, holds a request at the issuer in real time.
    static func holdsARequest(_ step: Step) -> Bool {
        switch step.action {
        case .world(.issuer(.fault(let fault))): (fault.delayMilliseconds ?? 0) > 0
        case .flow(.parallel(let steps)), .flow(.include(_, let steps)): steps.contains(where: holdsARequest)
        default: false
        }
    }

    /// `scripts/bench scenarios` measures "typical" scenarios as the library without the tag
    /// `realtime`; a scenario that waits on a real-time delay and lacks the tag would make
    /// that figure measure the delay.
    @Test("every scenario that holds a request at the issuer in real time is tagged realtime")
    func realtimeTags() throws {
        let scenarios = try Self.bundledScenarios()
        #expect(scenarios.count > 50)
        let untagged = scenarios.filter { scenario in
            !scenario.tags.contains("realtime") && scenario.steps.contains(where: Self.holdsARequest)
        }
        #expect(untagged.map(\.name) == [])
    }
}
