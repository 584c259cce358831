import Foundation
import Recordings
import Replay
import SignInSDK
import TestSupport
import Testing

/// The divergence report, word for word, for captures made by `Captures/make.sh` (signinsim
/// runs against the embedded issuer, one of them damaged on purpose). A change to the report's
/// wording or to what the replay finds shows up here as a diff against `Golden/`.
///
/// To accept a change on purpose: `SIGNINSIM_UPDATE_GOLDEN=1 swift test --filter GoldenReportTests`,
/// then read the diff before committing it.
@Suite struct GoldenReportTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// capture × SDK profile × mode, each with its golden report and exit status.
    static let cases: [(capture: String, profile: String, mode: ReplayTransport.Mode)] = [
        ("session", "default", .strict),
        ("session", "naive", .sequential),
        ("race", "naive", .strict),
        ("race", "default", .strict),
        ("race", "default", .sequential),
        ("damaged", "default", .strict),
        ("damaged", "default", .sequential),
    ]

    @Test("divergence reports match their golden files", arguments: cases.indices)
    func golden(index: Int) async throws {
        let (name, profileName, mode) = Self.cases[index]
        let capture = try HARImporter.load(path: TestCaptures.path("\(name).har"))
        let profile = try BehaviorProfile(named: profileName)
        let report = try await CaptureReplay.run(capture, options: .init(profile: profile, mode: mode))
        let text = report.text + "exit \(report.matches ? 0 : 1)\n"
        let golden = Self.folder.appendingPathComponent("Golden/\(name)-\(profileName)-\(mode.rawValue).txt")
        if ProcessInfo.processInfo.environment["SIGNINSIM_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: golden, options: .atomic)
            return
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(text == expected, "\(golden.lastPathComponent) differs:\n\(text)")
    }
}
