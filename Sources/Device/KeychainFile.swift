import AtomicFiles
import Foundation
import JSON

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

    /// Writes the items to `path` through a hidden, unique temporary file and `rename(2)`
    /// (`FileReplacement`): a writer killed before the rename leaves no visible `<name>.tmp`
    /// beside the keychain, and the file is readable by its owner only.
    static func write(_ items: [KeychainItemKey: KeychainItem], to path: String) throws(DeviceError) {
        do {
            try FileReplacement.replace(encode(items), at: path, permissions: 0o600)
        } catch {
            switch error.code {
            case .createFile:
                throw DeviceError(.storage, "cannot create a temporary file beside \(path): \(error.reason)")
            case .write:
                throw DeviceError(.storage, "cannot write \(error.path): \(error.reason)")
            case .flush, .rename:
                throw DeviceError(.storage, "cannot replace keychain file \(path): \(error.reason)")
            }
        }
    }
}
