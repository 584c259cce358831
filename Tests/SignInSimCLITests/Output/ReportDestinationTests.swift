import Foundation
import TestSupport
import Testing

@testable import SignInSimCLI

/// Report paths are checked by writing, before anything runs, and the check leaves nothing.
@Suite("Report destinations")
struct ReportDestinationTests {
    /// Every name under a folder, hidden ones included.
    static func contents(_ folder: TemporaryDirectory) throws -> [String] {
        (FileManager.default.subpaths(atPath: folder.url.path) ?? []).sorted()
    }

    @Test("a writable file path passes and leaves nothing, not even its missing folders")
    func writableFile() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("x", named: "existing.xml")
        let before = try Self.contents(folder)
        try ReportDestination.file(option: "junit", path: folder.url.path + "/new/deeper/junit.xml").check()
        try ReportDestination.file(option: "junit", path: folder.url.path + "/existing.xml").check()
        #expect(try Self.contents(folder) == before)
    }

    @Test("a folder is made, and left empty")
    func writableDirectory() throws {
        let folder = try TemporaryDirectory()
        try ReportDestination.directory(option: "har-dir", path: folder.url.path + "/har/run-1").check()
        #expect(try Self.contents(folder) == ["har", "har/run-1"])
    }

    @Test("a file in the way, or a folder where the file goes, is refused with the path and reason")
    func refused() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("x", named: "file.txt")
        let cases: [(ReportDestination, String)] = [
            (.file(option: "junit", path: file + "/junit.xml"), "Not a directory"),
            (.file(option: "report-json", path: file + "/deeper/run.json"), "Not a directory"),
            (.directory(option: "har-dir", path: file + "/har"), "Not a directory"),
            (.directory(option: "har-dir", path: file), "Not a directory"),
            (.file(option: "junit", path: folder.url.path), "it is a folder, not a file"),
            (.file(option: "junit", path: ""), "the path is empty"),
        ]
        for (destination, reason) in cases {
            do {
                try destination.check()
                Issue.record("expected \(destination) to be refused")
            } catch {
                #expect(error.description.contains(reason), "\(error)")
                #expect(error.description.hasPrefix("cannot write '--\(error.option) \(error.path)'"))
            }
        }
        #expect(try Self.contents(folder) == ["file.txt"])
    }

    /// Root may write anywhere, so this one runs only for other users.
    @Test("a folder without write permission is refused", .enabled(if: getuid() != 0, "root writes anywhere"))
    func permission() throws {
        let folder = try TemporaryDirectory()
        let locked = folder.url.path + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        chmod(locked, 0o500)
        defer { chmod(locked, 0o700) }
        #expect(throws: ReportDestination.Unwritable.self) {
            try ReportDestination.file(option: "junit", path: locked + "/junit.xml").check()
        }
        #expect(throws: ReportDestination.Unwritable.self) {
            try ReportDestination.directory(option: "har-dir", path: locked + "/har").check()
        }
    }

    /// `run`: an unwritable report is exit 2 before any scenario runs: nothing on standard
    /// output, no HAR folder made, the option and the reason on standard error.
    @Test(
        "run refuses an unwritable report path before running",
        arguments: [
            ("--junit", "/file.txt/junit.xml"), ("--report-json", "/file.txt/run.json"),
            ("--har-dir", "/file.txt/har"),
        ])
    func runRefuses(option: String, relativePath: String) async throws {
        let folder = try RunCommandTests.folder(["a.yaml": RunCommandTests.passing])
        let outputs = try TemporaryDirectory()
        _ = try outputs.write("x", named: "file.txt")
        let har = outputs.url.path + "/har"
        let streams = CapturedStreams()
        let harOption = option == "--har-dir" ? [] : ["--har-dir", har]
        let arguments = ["run", folder.url.path] + harOption + [option, outputs.url.path + relativePath]
        let status = await SignInSimCLI.run(arguments, context: streams.context())
        #expect(status == 2)
        #expect(streams.standardOutput.isEmpty, "nothing ran: \(streams.standardOutput)")
        #expect(
            streams.standardError.hasPrefix(
                "Error: cannot write '\(option) \(outputs.url.path + relativePath)': "),
            "\(streams.standardError)")
        #expect(streams.standardError.contains("Not a directory; nothing was run"))
        if option != "--har-dir" {
            #expect(
                !FileManager.default.fileExists(atPath: har), "the check stops before the run makes folders")
        }
    }
}
