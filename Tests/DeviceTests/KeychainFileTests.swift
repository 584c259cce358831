import Device
import Foundation
import Testing

@Suite("Keychain persistence")
struct KeychainFileTests {
    /// A fresh directory under the system's temporary directory.
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keychain-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static let key = KeychainItemKey(accessGroup: "TEAM.com.example", service: "auth", account: "refresh")

    /// Items written by one keychain are read back, bytes and classes intact, by the next.
    @Test func roundTrip() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/keychain.json"
        let first = try Keychain(persistingTo: path)
        try first.add([0, 255, 10, 13], for: Self.key, accessibility: .afterFirstUnlockThisDeviceOnly)
        let other = KeychainItemKey(accessGroup: "A", service: "s", account: "ü")
        try first.add(Array("x".utf8), for: other, accessibility: .whenPasscodeSetThisDeviceOnly)

        let second = try Keychain(persistingTo: path)
        #expect(second.dump() == first.dump())
        #expect(try second.read(Self.key) == [0, 255, 10, 13])
        #expect(try second.read(other) == Array("x".utf8))
        try second.delete(other)
        #expect(try Keychain(persistingTo: path).count == 1)
    }

    /// Each change replaces the file by rename: a hard link to the old file keeps the old content.
    @Test func writesAtomicallyByRename() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/keychain.json"
        let keychain = try Keychain(persistingTo: path)
        try keychain.add([1], for: Self.key, accessibility: .always)
        let before = try String(contentsOfFile: path, encoding: .utf8)
        try FileManager.default.linkItem(atPath: path, toPath: directory + "/old.json")
        try keychain.update([1, 2, 3], for: Self.key)
        #expect(try String(contentsOfFile: directory + "/old.json", encoding: .utf8) == before)
        #expect(try String(contentsOfFile: path, encoding: .utf8) != before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "keychain.json", "old.json",
            ])
    }

    /// Issue 27: the temporary file was the visible, shared `keychain.json.tmp`, which a
    /// killed writer left behind and which blocked every later write if something else took
    /// the name. It is hidden and unique now: a `keychain.json.tmp` in the way changes nothing.
    @Test func temporaryFileIsHiddenAndUnique() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/keychain.json"
        try FileManager.default.createDirectory(atPath: path + ".tmp", withIntermediateDirectories: false)
        let keychain = try Keychain(persistingTo: path)
        try keychain.add([1], for: Self.key, accessibility: .always)
        try keychain.update([1, 2], for: Self.key)
        #expect(try Keychain(persistingTo: path).read(Self.key) == [1, 2])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "keychain.json", "keychain.json.tmp",
            ])
    }

    /// A corrupt file is refused at load with an error naming the file.
    @Test(arguments: [
        "{not json", #"{"format":"other","version":1,"items":[]}"#,
        #"{"format":"signinsim-keychain","version":1,"items":[{"accessGroup":"g","service":"s","account":"a","accessibility":"sometimes","data":""}]}"#,
    ])
    func corruptFileIsRefused(contents: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/keychain.json"
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        let error = #expect(throws: DeviceError.self) { try Keychain(persistingTo: path) }
        #expect(error?.code == .storage)
        #expect(error?.message.hasPrefix("keychain file \(path) is corrupt:") == true)
    }

    /// A change that cannot be written fails with errSecIO and leaves the keychain as it was.
    @Test func failedWriteKeepsTheOldItems() throws {
        let keychain = try Keychain(persistingTo: "/nonexistent-\(UUID().uuidString)/keychain.json")
        let error = #expect(throws: KeychainError.self) {
            try keychain.add([1], for: Self.key, accessibility: .always)
        }
        #expect(error?.status == -36)
        #expect(keychain.count == 0)
    }
}
