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
/// against the embedded issuer. Sheets replay and import in the engine that recorded them, so a
/// scenario whose sheets run in WebKit gets the shared engine at every stage.
@Suite struct BundledRoundTripTests {
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
        // The shared engine when a sheet runs in WebKit; lite-only scenarios need none installed.
        let browsers =
            scenario.usesBrowser(.webkit, runDefault: BrowserSelection().runDefault(for: scenario))
            ? BrowserSelection(webKit: try TestWebKit.engine()) : BrowserSelection()
        let outcome = await ScenarioRunner.run(scenario, seed: 7, browsers: browsers)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        let har = HARWriter.render(
            outcome.exchanges, recording: outcome.recording, creator: "signinsim", version: "test")
        let capture = try HARImporter.parse(har, file: file)

        var options = CaptureReplay.Options()
        options.file = file
        options.browsers = browsers
        let report = try await CaptureReplay.run(capture, options: options)
        #expect(report.matches, "\(report.text)")

        var derivation = ScenarioDerivation.Options()
        derivation.file = file
        derivation.browsers = browsers
        let derived = try await ScenarioDerivation.derive(capture, options: derivation)
        #expect(derived.passed == true, "\(derived.yaml)\(derived.notExpressed)")
        #expect(derived.notExpressed.isEmpty, "\(derived.notExpressed)")
    }
}
