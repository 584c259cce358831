/// App lifecycle actions (Device's `AppState` rules decide which are allowed when).
public enum AppAction: String, Hashable, Sendable, CaseIterable {
    case install
    /// Cold launch by the user: a new process and a new SDK, configured at start.
    case launch
    /// Launched by the system before the first unlock (prewarming, iOS 15+).
    case prewarm
    case foreground
    case resignActive
    case background
    /// The process is killed: in-memory state lost, requests in flight abandoned.
    case terminate
    case uninstall
    /// Deleted and installed again: preferences wiped, keychain kept.
    case reinstall
}

/// Device actions.
public enum DeviceAction: String, Hashable, Sendable, CaseIterable {
    /// Restart: every app terminated, the keychain locked until the first unlock.
    case reboot
    case lock
    case unlock
}
