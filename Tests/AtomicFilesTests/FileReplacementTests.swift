import AtomicFiles
import Foundation
import Testing

@Suite("File replacement")
struct FileReplacementTests {
    /// A fresh directory under the system's temporary directory, removed after the test.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "replace-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// The file is replaced whole, with the mode asked for, and no temporary file remains.
    @Test func replacesWithPermissions() throws {
        try withDirectory { directory in
            let path = "\(directory)/keychain.json"
            try FileReplacement.replace(Array(repeating: 7, count: 70_000), at: path, permissions: 0o600)
            try FileReplacement.replace([1, 2], at: path, permissions: 0o600, syncingDirectory: true)
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == [1, 2])
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["keychain.json"])
        }
    }

    /// A missing directory is no temporary file: `createFile`, naming the target and errno.
    @Test func missingDirectoryFailsToCreate() throws {
        try withDirectory { directory in
            let path = "\(directory)/missing/file.json"
            let error = try #require(throws: FileReplacementError.self) {
                try FileReplacement.replace([1], at: path)
            }
            #expect(error.code == .createFile)
            #expect(error.path == path)
            #expect(error.systemErrorNumber == ENOENT)
            #expect(
                error.description
                    == "create_file: cannot create a temporary file beside '\(path)': \(error.reason)")
        }
    }

    /// A directory in the target's place fails the rename, and the temporary file goes.
    @Test func renameFailureCleansUp() throws {
        try withDirectory { directory in
            try FileManager.default.createDirectory(
                atPath: "\(directory)/taken/inner", withIntermediateDirectories: true)
            let error = try #require(throws: FileReplacementError.self) {
                try FileReplacement.replace([1], at: "\(directory)/taken")
            }
            #expect(error.code == .rename)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["taken"])
        }
    }

    /// The temporary files' names carry the writer's process id, and only such names count.
    @Test func temporaryFileOwner() {
        #expect(FileReplacement.temporaryFileOwner(".keychain.json.4242.3w5e11264sgsg.tmp") == 4242)
        #expect(FileReplacement.temporaryFileOwner("keychain.json.4242.3w5e.tmp") == nil)
        #expect(FileReplacement.temporaryFileOwner(".keychain.json.tmp") == nil)
    }

    /// The owner is read back from names `replace` makes (the reports' own cases), and from nothing else.
    @Test("temporary file owners")
    func owners() {
        #expect(FileReplacement.temporaryFileOwner(".run.json.4242.3w5e11264sgsg.tmp") == 4242)
        #expect(FileReplacement.temporaryFileOwner(".a.b.c.7.0.tmp") == 7)
        #expect(FileReplacement.temporaryFileOwner(".run.json.0.abc.tmp") == nil)
        #expect(FileReplacement.temporaryFileOwner(".run.json.-4.abc.tmp") == nil)
        #expect(FileReplacement.temporaryFileOwner("..4.abc.tmp") == nil)
        #expect(FileReplacement.temporaryFileOwner(".run.json.99999999999.abc.tmp") == nil)
    }

    @Test func parentDirectory() {
        #expect(FileReplacement.parentDirectory(of: "keychain.json") == ".")
        #expect(FileReplacement.parentDirectory(of: "/a//keychain.json") == "/a")
    }
}
