import Foundation
import Testing

/// Compares output with a file under `Golden/`, found next to this source file rather than as a
/// package resource, so that re-recording writes to the checked-in copy.
///
/// `SIGNINSIM_RECORD_GOLDEN=1 swift test --filter ScenarioReportsTests` rewrites every golden
/// file from the current output; review the diff before committing it.
enum GoldenFile {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Golden")

    static var isRecording: Bool { ProcessInfo.processInfo.environment["SIGNINSIM_RECORD_GOLDEN"] == "1" }

    static func check(
        _ actual: [UInt8], matches name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let url = directory.appendingPathComponent(name)
        if isRecording {
            try Data(actual).write(to: url, options: .atomic)
            return
        }
        let expected = try [UInt8](Data(contentsOf: url))
        #expect(
            String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
            "output differs from Golden/\(name); rerun with SIGNINSIM_RECORD_GOLDEN=1 to re-record",
            sourceLocation: sourceLocation)
        #expect(actual == expected, "bytes differ from Golden/\(name)", sourceLocation: sourceLocation)
    }
}
