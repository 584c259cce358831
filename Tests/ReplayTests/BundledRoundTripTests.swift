import Foundation
import Recordings
import Scenario
import ScenarioReports
import ScenarioRunner
import TestSupport
import Testing

@testable import Replay

/// The round trip of the whole bundled library: each scenario run with its HAR written as
/// `run --har-dir` writes it (redacted by default), that HAR replayed from launch (the app must
/// behave as recorded), and imported as a scenario that must read back, validate and pass
/// against the embedded issuer.
@Suite(.serialized) struct BundledRoundTripTests {
    static let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenarios").path

    /// The bundled scenario files, as `signinsim run scenarios` finds them.
    static func files() -> [String] {
        (try? ScenarioDiscovery.files(in: [library])) ?? []
    }

    @Test(
        "a bundled scenario's HAR replays as recorded and imports as a scenario that passes",
        arguments: files())
    func roundTrip(file: String) async throws {
        let scenario = try ScenarioLoader.load(path: file)
        let outcome = await ScenarioRunner.run(scenario, seed: 7)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        let har = HARWriter.render(
            outcome.exchanges, recording: outcome.recording, creator: "signinsim", version: "test")
        let capture = try HARImporter.parse(har, file: file)

        var options = CaptureReplay.Options()
        options.file = file
        let report = try await CaptureReplay.run(capture, options: options)
        #expect(report.matches, "\(report.text)")

        var derivation = ScenarioDerivation.Options()
        derivation.file = file
        let derived = try await ScenarioDerivation.derive(capture, options: derivation)
        #expect(derived.passed == true, "\(derived.yaml)\(derived.notExpressed)")
        #expect(derived.notExpressed.isEmpty, "\(derived.notExpressed)")
    }
}
