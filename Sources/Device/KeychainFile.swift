import Foundation
import JSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The keychain's file: JSON with sorted keys and items, written to a temporary file beside it
/// and renamed over it, so that a crash leaves either the old file or the new one, never half.
///
///     {"format": "signinsim-keychain", "version": 1,
///      "items": [{"accessGroup": …, "service": …, "account": …,
///                 "accessibility": "afterFirstUnlock", "data": "<base64>"}]}
enum KeychainFile {
    static let format = "signinsim-keychain"
    static let version: Int64 = 1

    /// The items in the file at `path`; none when the file does not exist.
    static func load(path: String) throws(DeviceError) -> [KeychainItemKey: KeychainItem] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw DeviceError(.storage, "keychain file \(path) cannot be read")
        }
        do {
            return try decode(Array(contents))
        } catch {
            throw DeviceError(.storage, "keychain file \(path) is corrupt: \(error.message)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws(DeviceError) -> [KeychainItemKey: KeychainItem] {
        let root: [String: JSONValue]
        do {
            root = try JSONValue.parseObject(bytes)
        } catch {
            throw DeviceError(.storage, error.description)
        }
        guard root["format"]?.stringValue == format else {
            throw DeviceError(.storage, "\"format\" is not \"\(format)\"")
        }
        guard root["version"]?.int64Value == version else {
            throw DeviceError(.storage, "unsupported \"version\" (expected \(version))")
        }
        guard let entries = root["items"]?.arrayValue else {
            throw DeviceError(.storage, "\"items\" is not an array")
        }
        var items: [KeychainItemKey: KeychainItem] = [:]
        for (index, entry) in entries.enumerated() {
            guard let accessGroup = entry["accessGroup"]?.stringValue,
                let service = entry["service"]?.stringValue,
                let account = entry["account"]?.stringValue
            else {
                throw DeviceError(.storage, "item \(index) lacks accessGroup, service or account")
            }
            guard let className = entry["accessibility"]?.stringValue,
                let accessibility = KeychainAccessibility(rawValue: className)
            else {
                throw DeviceError(.storage, "item \(index) has no known accessibility class")
            }
            guard let encoded = entry["data"]?.stringValue, let data = Data(base64Encoded: encoded) else {
                throw DeviceError(.storage, "item \(index) has no base64 \"data\"")
            }
            let key = KeychainItemKey(accessGroup: accessGroup, service: service, account: account)
            guard items[key] == nil else {
                throw DeviceError(.storage, "item \(index) repeats \(key)")
            }
            items[key] = KeychainItem(key: key, data: Array(data), accessibility: accessibility)
        }
        return items
    }

    static func encode(_ items: [KeychainItemKey: KeychainItem]) -> [UInt8] {
        let entries: [JSONValue] = items.values.sorted { $0.key < $1.key }.map { item in
            .object([
                "accessGroup": .string(item.key.accessGroup),
                "service": .string(item.key.service),
                "account": .string(item.key.account),
                "accessibility": .string(item.accessibility.rawValue),
                "data": .string(Data(item.data).base64EncodedString()),
            ])
        }
        let root: JSONValue = [
            "format": .string(format), "version": .int(version), "items": .array(entries),
        ]
        return Array((root.prettyPrinted() + "\n").utf8)
    }

    /// Writes the items to `path` through a temporary file and `rename(2)`.
    ///
    /// The temporary file is hidden and unique (`.<name>.<pid>.<random>.tmp`, created with
    /// `O_EXCL`): two writers never share one, and a writer killed before the rename leaves no
    /// visible `<name>.tmp` beside the keychain.
    static func write(_ items: [KeychainItemKey: KeychainItem], to path: String) throws(DeviceError) {
        let bytes = encode(items)
        let (descriptor, temporary) = try createTemporaryFile(beside: path)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { rest in
                systemWrite(descriptor, rest.baseAddress, rest.count)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let text = errorText()
                close(descriptor)
                unlink(temporary)
                throw DeviceError(.storage, "cannot write \(temporary): \(text)")
            }
            written += result
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            let text = errorText()
            unlink(temporary)
            throw DeviceError(.storage, "cannot replace keychain file \(path): \(text)")
        }
    }

    /// A new, hidden file in the directory of `path`, opened with `O_EXCL`.
    static func createTemporaryFile(beside path: String) throws(DeviceError) -> (Int32, String) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var lastError: Int32 = EEXIST
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = "\(directory).\(name).\(getpid()).\(suffix).tmp"
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { return (descriptor, candidate) }
            lastError = errno
            if lastError != EEXIST { break }
        }
        throw DeviceError(
            .storage, "cannot create a temporary file beside \(path): \(String(cString: strerror(lastError)))"
        )
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
    #else
        Darwin.write(descriptor, bytes, count)
    #endif
}
