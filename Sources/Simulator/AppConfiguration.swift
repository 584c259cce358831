public import Device
public import HTTPCore
public import SignInSDK

/// How an app on a simulated device is built: its bundle id, its SDK configuration, and
/// where its SDK keeps tokens.
public struct AppConfiguration: Sendable, Hashable {
    public var bundleID: String
    /// What the app passes to `configure(options:)` at each launch.
    public var options: SignInOptions
    /// The keychain class of the SDK's items (docs/sdk.md: after first unlock, this device only).
    public var keychainAccessibility: KeychainAccessibility
    /// The keychain access group (by default the bundle id).
    public var accessGroup: String
    /// The engine its web sheets run in.
    public var browser: BrowserEngine

    public init(
        bundleID: String, options: SignInOptions,
        keychainAccessibility: KeychainAccessibility = .afterFirstUnlockThisDeviceOnly,
        accessGroup: String? = nil, browser: BrowserEngine = .lite
    ) {
        self.bundleID = bundleID
        self.options = options
        self.keychainAccessibility = keychainAccessibility
        self.accessGroup = accessGroup ?? bundleID
        self.browser = browser
    }
}
