import Foundation
import Testing

@testable import ScenarioReports

@Suite("Atomic file")
struct AtomicFileTests {
    /// A fresh directory under the system's temporary directory, removed after the test.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "atomic-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    private func contents(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The bytes arrive, and missing parent directories are created.
    @Test("writes and creates parents")
    func writes() throws {
        try withDirectory { directory in
            let path = "\(directory)/reports/ci/report.json"
            try AtomicFile.write(Array("{}\n".utf8), to: path)
            #expect(try contents(path) == Array("{}\n".utf8))
        }
    }

    /// An existing file is replaced whole, longer or shorter, and no temporary file remains.
    @Test("replaces and leaves no temporary file")
    func replaces() throws {
        try withDirectory { directory in
            let path = "\(directory)/report.xml"
            try AtomicFile.write(Array(repeating: UInt8(ascii: "a"), count: 100_000), to: path)
            try AtomicFile.write(Array("short".utf8), to: path)
            #expect(try contents(path) == Array("short".utf8))
            try AtomicFile.write([], to: path)
            #expect(try contents(path) == [])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.xml"])
        }
    }

    /// A path through a regular file fails with an error naming the path and the reason.
    @Test("fails under a regular file")
    func failsUnderFile() throws {
        try withDirectory { directory in
            let file = "\(directory)/plain"
            try AtomicFile.write(Array("x".utf8), to: file)
            let error = try #require(throws: ReportError.self) {
                try AtomicFile.write(Array("y".utf8), to: "\(file)/sub/report.json")
            }
            #expect(error.code == .createDirectory)
            #expect(error.path.hasPrefix(file))
            #expect(error.message.contains(file))
            #expect(error.message.contains("Not a directory"))
            #expect(error.systemErrorNumber == ENOTDIR)
            #expect(try contents(file) == Array("x".utf8))
        }
    }

    /// When the rename fails (the target is a directory), the temporary file is removed.
    @Test("cleans up when the rename fails")
    func renameFailure() throws {
        try withDirectory { directory in
            try FileManager.default.createDirectory(
                atPath: "\(directory)/taken/inner", withIntermediateDirectories: true)
            let error = try #require(throws: ReportError.self) {
                try AtomicFile.write(Array("y".utf8), to: "\(directory)/taken")
            }
            #expect(error.code == .rename)
            #expect(error.description.contains("\(directory)/taken"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["taken"])
        }
    }

    /// Issue 27: the hidden temporary files of writers that died are removed; those of live
    /// processes (this one included) and every other file are left alone.
    @Test("removes stale temporary files only")
    func removesStale() throws {
        try withDirectory { directory in
            let dead = "99999999"  // above Linux's largest pid_max (2^22): no such process
            let stale = [".report.xml.\(dead).1a2b.tmp", ".a.b.har.\(dead).0.tmp"]
            let kept = [
                ".report.xml.\(getpid()).1a2b.tmp", ".report.xml.1.zz.tmp", "report.xml.\(dead).1a.tmp",
                ".report.xml.\(dead).tmp", ".report.xml.\(dead).A.tmp", ".report.xml.\(dead).1a",
                "report.xml",
            ]
            for name in stale + kept {
                _ = FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: Data("x".utf8))
            }
            let removed = AtomicFile.removeStaleTemporaryFiles(in: directory)
            #expect(Set(removed) == Set(stale.map { "\(directory)/\($0)" }))
            let left = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(Set(left) == Set(kept))
            #expect(AtomicFile.removeStaleTemporaryFiles(in: "\(directory)/missing").isEmpty)
        }
    }

    /// The directory the temporary file goes in, for absolute, relative and root paths (a
    /// bare name is in the current directory, so tests need not change it).
    @Test("parent directories")
    func parentDirectories() {
        #expect(AtomicFile.parentDirectory(of: "/a/b/c.xml") == "/a/b")
        #expect(AtomicFile.parentDirectory(of: "reports//c.xml") == "reports")
        #expect(AtomicFile.parentDirectory(of: "c.xml") == ".")
        #expect(AtomicFile.parentDirectory(of: "/c.xml") == "/")
        #expect(AtomicFile.parentDirectory(of: "a/b/") == "a")
    }
}
