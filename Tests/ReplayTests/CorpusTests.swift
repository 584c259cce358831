import Foundation
import Recordings
import Scenario
import ScenarioRunner
import TestSupport
import Testing

@testable import Replay

/// Captures of issuers nobody here wrote (`Captures/corpus/`, made by `scripts/captures`: a
/// client that behaves as a native app, through mitmproxy, against django-oauth-toolkit,
/// django-oidc-provider and django-allauth's OpenID provider). Each replays from launch with
/// the SDK profile its traffic shows and behaves as recorded (sign-out aside: see below), with
/// its report word for word in `Golden/corpus/`; each imports as the scenario in
/// `Golden/corpus/`, which passes against the embedded issuer.
///
/// To accept a change on purpose: `SIGNINSIM_UPDATE_GOLDEN=1 swift test --filter CorpusTests`,
/// then read the diff before committing it.
@Suite struct CorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let corpus = folder.appendingPathComponent("Captures/corpus")

    /// `provider/story` of every capture.
    static func captures() -> [String] {
        let providers = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return providers.sorted().flatMap { provider -> [String] in
            let files =
                (try? FileManager.default.contentsOfDirectory(atPath: corpus.path + "/" + provider)) ?? []
            return files.filter { $0.hasSuffix(".har") }.sorted().map {
                provider + "/" + String($0.dropLast(4))
            }
        }
    }

    static func load(_ name: String) throws -> HARCapture {
        try HARImporter.load(path: corpus.appendingPathComponent(name + ".har").path)
    }

    static func golden(_ name: String, _ suffix: String) -> URL {
        folder.appendingPathComponent(
            "Golden/corpus/" + name.replacingOccurrences(of: "/", with: "-") + suffix)
    }

    static func check(_ text: String, against url: URL) throws {
        try GoldenFile(at: url).check(text)
    }

    @Test(
        "every corpus capture has its story read and replays with the profile it shows", arguments: captures()
    )
    func replay(name: String) async throws {
        let capture = try Self.load(name)
        let analysis = CaptureAnalysis(capture)
        #expect(analysis.hasOAuthTraffic)
        var options = CaptureReplay.Options()
        options.file = "corpus/\(name).har"
        options.profile = ClientBehavior(analysis).profile.description
        let report = try await CaptureReplay.run(capture, options: options)
        // The SDK signs out from its own HTTP client; these issuers' end-session page asks the
        // browser to confirm, which the recorded client did and the SDK does not.
        if !name.hasSuffix("/sign-out") {
            #expect(report.matches, "\(report.text)")
        }
        try Self.check(report.text, against: Self.golden(name, ".replay.txt"))
    }

    @Test(
        "every corpus capture imports as a scenario that passes against the embedded issuer",
        arguments: captures())
    func derive(name: String) async throws {
        var options = ScenarioDerivation.Options()
        options.file = "corpus/\(name).har"
        let derived = try await ScenarioDerivation.derive(try Self.load(name), options: options)
        #expect(derived.passed == true, "\(derived.yaml)")
        #expect(derived.notExpressed.isEmpty, "\(derived.notExpressed)")
        let golden = Self.golden(name, ".derived.yaml")
        try Self.check(derived.yaml, against: golden)
        // The checked-in scenario itself passes, as `signinsim run` would run it.
        let scenario = try ScenarioLoader.load(path: golden.path)
        let outcome = await ScenarioRunner.run(scenario, seed: 3)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
    }

    /// A refresh the recorded issuer held and then failed (allauth's SQLite database, locked by
    /// the other refresh, answered 500 after a wait on a loaded machine) takes only its failure:
    /// the embedded issuer takes one fault per request, and a delay armed for it as well left the
    /// 500 to no request, so both refreshes went through and the second was a replay.
    @Test("a held refresh that then failed takes only its failure, and the race still passes")
    func heldThenFailed() async throws {
        var capture = try Self.load("django-allauth/refresh-race")
        let failed = try #require(capture.exchanges.firstIndex { $0.status == 500 })
        capture.exchanges[failed].timeMilliseconds = 335
        var options = ScenarioDerivation.Options()
        options.file = "refresh-race.har"
        let derived = try await ScenarioDerivation.derive(capture, options: options)
        #expect(derived.passed == true, "\(derived.yaml)")
        #expect(derived.yaml.contains("held 335 ms, then 500"), "\(derived.yaml)")
        #expect(!derived.yaml.contains("delay_ms: 335"), "\(derived.yaml)")
        #expect(derived.yaml.contains("fault: http-html-error"), "\(derived.yaml)")
    }
}
