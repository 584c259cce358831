public import Foundation
public import Testing

/// Output compared with a checked-in file (`Golden/` beside the test's source, found through
/// `#filePath` rather than as a package resource, so that re-recording writes to the checked-in
/// copy).
///
/// To accept a change on purpose, re-record and read the diff before committing it:
/// `SIGNINSIM_UPDATE_GOLDEN=1 swift test --filter SUITE`.
public struct GoldenFile: Sendable {
    /// The one environment variable that re-records every golden file.
    public static let updateVariable = "SIGNINSIM_UPDATE_GOLDEN"

    public static var isUpdating: Bool { ProcessInfo.processInfo.environment[updateVariable] == "1" }

    public let url: URL

    /// The file at `url`.
    public init(at url: URL) {
        self.url = url
    }

    /// `Golden/name` beside the calling test's source file.
    public init(named name: String, besideSource file: String = #filePath) {
        url = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Golden/" + name)
    }

    /// Expects `actual` to be the file's bytes; when updating, writes them instead (atomically).
    public func check(_ actual: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        if Self.isUpdating {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual).write(to: url, options: .atomic)
            return
        }
        let expected = try [UInt8](Data(contentsOf: url))
        #expect(
            String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
            "output differs from \(url.lastPathComponent); rerun with \(Self.updateVariable)=1 to re-record",
            sourceLocation: sourceLocation)
        #expect(
            actual == expected, "bytes differ from \(url.lastPathComponent)", sourceLocation: sourceLocation)
    }

    /// The same for text.
    public func check(_ actual: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        try check(Array(actual.utf8), sourceLocation: sourceLocation)
    }
}
