public import JSON

/// One app on the device, as a pure state machine driven by named lifecycle events.
///
/// Models UIKit's life cycle (`application(_:didFinishLaunchingWithOptions:)`,
/// `sceneDidBecomeActive`, `sceneWillResignActive`, `sceneDidEnterBackground`, termination)
/// plus install and delete. Deleting an app removes its container, hence its preferences
/// (`UserDefaults`), but not its keychain items, which belong to the device (field bug 16).
/// Every cold launch increments `generation`, so that owners of in-memory state can tell the
/// process restarted (field bug 2). Events return an `AppTransition` or throw
/// `DeviceError.invalidLifecycleState` naming the app and why.
public struct AppState: Hashable, Sendable {
    public let bundleID: String
    public private(set) var phase: AppPhase
    /// How many processes the app has had on this device: 0 before its first launch.
    public private(set) var generation: Int
    /// How many times the app has been installed.
    public private(set) var installCount: Int
    /// Why the current process started, or `nil` when not running.
    public private(set) var launchKind: LaunchKind?
    /// The app's `UserDefaults`: lost when the app is deleted.
    public var preferences: [String: JSONValue]

    /// An app known to the device but not installed.
    public init(bundleID: String) {
        self.bundleID = bundleID
        phase = .notInstalled
        generation = 0
        installCount = 0
        launchKind = nil
        preferences = [:]
    }

    /// The app is installed from the App Store.
    public mutating func install() throws(DeviceError) -> AppTransition {
        guard phase == .notInstalled else { throw invalid("install", "already installed") }
        installCount += 1
        return move(.install, to: .notRunning)
    }

    /// The system starts a new process for the app: a cold launch.
    public mutating func launch(_ kind: LaunchKind) throws(DeviceError) -> AppTransition {
        guard phase != .notInstalled else { throw invalid("launch", phase.label) }
        guard !phase.isRunning else { throw invalid("launch", "already running (\(phase.label))") }
        generation += 1
        launchKind = kind
        return move(.launch(kind), to: kind == .userTap ? .foregroundActive : .background)
    }

    /// The app comes to the screen and becomes active (`sceneDidBecomeActive`).
    public mutating func foreground() throws(DeviceError) -> AppTransition {
        guard phase.isRunning else { throw invalid("foreground", phase.label) }
        guard phase != .foregroundActive else { throw invalid("foreground", "already foreground-active") }
        return move(.foreground, to: .foregroundActive)
    }

    /// Something covers the active app, such as a system sheet (`sceneWillResignActive`).
    public mutating func resignActive() throws(DeviceError) -> AppTransition {
        guard phase == .foregroundActive else { throw invalid("resign active", phase.label) }
        return move(.resignActive, to: .foregroundInactive)
    }

    /// The app leaves the screen (`sceneDidEnterBackground`).
    public mutating func background() throws(DeviceError) -> AppTransition {
        guard phase.isForeground else {
            throw invalid("background", phase == .background ? "already in the background" : phase.label)
        }
        return move(.background, to: .background)
    }

    /// The process ends (user swipe, jetsam, crash, reboot): in-memory state is lost.
    public mutating func terminate() throws(DeviceError) -> AppTransition {
        guard phase.isRunning else { throw invalid("terminate", phase.label) }
        launchKind = nil
        return move(.terminate, to: .notRunning)
    }

    /// The user deletes the app: its process ends and its preferences are wiped; its keychain
    /// items stay on the device.
    public mutating func uninstall() throws(DeviceError) -> AppTransition {
        guard phase != .notInstalled else { throw invalid("uninstall", phase.label) }
        launchKind = nil
        preferences = [:]
        return move(.uninstall, to: .notInstalled)
    }

    /// Delete then install again: a fresh container (no preferences) over the old keychain.
    public mutating func reinstall() throws(DeviceError) -> AppTransition {
        guard phase != .notInstalled else { throw invalid("reinstall", phase.label) }
        let from = phase
        _ = try uninstall()
        _ = try install()
        return AppTransition(
            bundleID: bundleID, event: .reinstall, from: from, to: phase, generation: generation)
    }

    private mutating func move(_ event: AppEvent, to newPhase: AppPhase) -> AppTransition {
        let transition = AppTransition(
            bundleID: bundleID, event: event, from: phase, to: newPhase, generation: generation)
        phase = newPhase
        return transition
    }

    private func invalid(_ action: String, _ reason: String) -> DeviceError {
        DeviceError(.invalidLifecycleState, "cannot \(action) \(bundleID): \(reason)")
    }
}
