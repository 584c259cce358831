import Foundation
import Recordings
import Replay
import TestSupport
import Testing

/// The replay report, word for word, for captures made by `Captures/make.sh` (signinsim runs
/// against the embedded issuer, one damaged on purpose, one stripped of its steps as another
/// tool would record it). A change to the report's wording or to what the replay finds shows up
/// here as a diff against `Golden/`.
///
/// To accept a change on purpose: `SIGNINSIM_UPDATE_GOLDEN=1 swift test --filter GoldenReportTests`,
/// then read the diff before committing it.
@Suite struct GoldenReportTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// capture × SDK profile (nil: the capture's own) × mode, each with its golden report.
    static let cases: [(capture: String, profile: String?, mode: ReplayMode)] = [
        ("session", nil, .strict),
        ("session", "naive", .sequential),
        ("race", nil, .strict),
        ("race", "default", .strict),
        ("race", "default", .sequential),
        ("damaged", nil, .strict),
        ("damaged", nil, .sequential),
        ("foreign", nil, .strict),
        ("tampered-state", nil, .strict),
        ("wrong-password", nil, .strict),
    ]

    @Test("replay reports match their golden files", arguments: cases.indices)
    func golden(index: Int) async throws {
        let (name, profile, mode) = Self.cases[index]
        let capture = try HARImporter.load(path: TestCaptures.path("\(name).har"))
        var options = CaptureReplay.Options()
        options.profile = profile
        options.mode = mode
        options.file = "\(name).har"
        let report = try await CaptureReplay.run(capture, options: options)
        let text = report.text + "exit \(report.matches ? 0 : 1)\n"
        let golden = Self.folder.appendingPathComponent(
            "Golden/\(name)-\(profile ?? "recorded")-\(mode.rawValue).txt")
        try GoldenFile(at: golden).check(text)
    }
}
