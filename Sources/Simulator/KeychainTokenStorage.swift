public import Device
public import SignInSDK

/// The SDK's storage adapter over the device keychain: one generic-password item per key,
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` by default (docs/sdk.md, "Storage").
///
/// `errSecItemNotFound` on read means "nothing stored"; every other status (notably
/// `errSecInteractionNotAllowed` before the first unlock) is thrown, so the SDK can tell a
/// locked keychain from a signed-out user.
public struct KeychainTokenStorage: TokenStorage {
    public let keychain: Keychain
    public let accessGroup: String
    public let service: String
    public let accessibility: KeychainAccessibility

    public init(
        keychain: Keychain, accessGroup: String, service: String = "signin",
        accessibility: KeychainAccessibility = .afterFirstUnlockThisDeviceOnly
    ) {
        self.keychain = keychain
        self.accessGroup = accessGroup
        self.service = service
        self.accessibility = accessibility
    }

    private func itemKey(_ key: String) -> KeychainItemKey {
        KeychainItemKey(accessGroup: accessGroup, service: service, account: key)
    }

    public func save(key: String, value: [UInt8]) throws(TokenStorageError) {
        do {
            _ = try keychain.upsert(value, for: itemKey(key), accessibility: accessibility)
        } catch {
            throw Self.storageError(error)
        }
    }

    public func load(key: String) throws(TokenStorageError) -> [UInt8]? {
        do {
            return try keychain.read(itemKey(key))
        } catch  where error.code == .itemNotFound {
            return nil
        } catch {
            throw Self.storageError(error)
        }
    }

    public func delete(key: String) throws(TokenStorageError) {
        do {
            try keychain.delete(itemKey(key))
        } catch  where error.code == .itemNotFound {
            return
        } catch {
            throw Self.storageError(error)
        }
    }

    static func storageError(_ error: KeychainError) -> TokenStorageError {
        TokenStorageError(
            error.code == .interactionNotAllowed ? .unavailable : .failure, error.message,
            status: error.status)
    }
}

/// The app's `UserDefaults` on a simulated device: wiped when the app is deleted.
public struct DeviceAppPreferences: AppPreferences {
    public let device: SimulatedDevice
    public let bundleID: String

    public init(device: SimulatedDevice, bundleID: String) {
        self.device = device
        self.bundleID = bundleID
    }

    public func string(forKey key: String) -> String? {
        device.preference(key, of: bundleID)?.stringValue
    }

    public func set(_ value: String?, forKey key: String) {
        // An app that is not installed has no preferences to write; nothing to keep.
        try? device.setPreference(value.map { .string($0) }, forKey: key, of: bundleID)
    }
}
