import Locking

/// The app's own preferences (`UserDefaults`): wiped when the app is deleted, unlike the keychain.
///
/// The SDK keeps one flag here to notice a fresh install and clear keychain items a previous
/// installation left behind (field bug 16).
public protocol AppPreferences: Sendable {
    func string(forKey key: String) -> String?
    func set(_ value: String?, forKey key: String)
}

/// Preferences held in memory: for tests and hosts that have no preferences store.
public final class InMemoryAppPreferences: AppPreferences {
    private let values = Mutex<[String: String]>([:])

    public init() {}

    public func string(forKey key: String) -> String? { values.withLock { $0[key] } }

    public func set(_ value: String?, forKey key: String) { values.withLock { $0[key] = value } }
}
