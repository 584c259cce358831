/// Where an app is in its life, after UIKit's `UIApplication.State` and scene activation states.
///
/// `foregroundActive` is the only phase in which an app may present UI such as
/// `ASWebAuthenticationSession` (field bug 6); `foregroundInactive` is the app behind a system
/// sheet or during a transition (`sceneWillResignActive`).
public enum AppPhase: String, Hashable, Sendable, CaseIterable {
    /// Not on the device (never installed, or deleted).
    case notInstalled
    /// Installed, no process.
    case notRunning
    /// Running, not visible: background launch, prewarming, or after `sceneDidEnterBackground`.
    case background
    /// Visible, not receiving events (`UIApplication.State.inactive`).
    case foregroundInactive
    /// Visible and receiving events (`UIApplication.State.active`).
    case foregroundActive

    /// Whether the app has a process.
    public var isRunning: Bool {
        switch self {
        case .background, .foregroundInactive, .foregroundActive: true
        case .notInstalled, .notRunning: false
        }
    }

    /// Whether the app is on screen.
    public var isForeground: Bool { self == .foregroundInactive || self == .foregroundActive }

    /// How error messages and reports name the phase.
    public var label: String {
        switch self {
        case .notInstalled: "not installed"
        case .notRunning: "not running"
        case .background: "in the background"
        case .foregroundInactive: "foreground-inactive"
        case .foregroundActive: "foreground-active"
        }
    }
}

/// Why iOS started an app's process.
public enum LaunchKind: String, Hashable, Sendable, CaseIterable {
    /// The user tapped the icon: the app comes up foreground-active.
    case userTap
    /// A background launch (push, background fetch, location): the app runs unseen.
    case background
    /// Prewarming (iOS 15+): the system starts the process ahead of use, possibly before the
    /// first unlock after a reboot, when protected keychain items are still unreadable.
    case prewarm
}
