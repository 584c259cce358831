public import Clocks
public import Cryptography
public import HTTPCore
public import JSON
import Locking

/// One simulated iPhone: its power and lock, its apps, its keychain, its clock, its randomness
/// and its network.
///
/// The thin layer over the `DeviceState` and `AppState` machines: each method feeds one event,
/// carries out the action it returns (a reboot terminates every app, a lock sends foreground
/// apps to the background) and then tells the keychain the new lock state, all under one lock
/// so that observers never see the device and its keychain disagree. iOS rules enforced here
/// rather than per app: nothing runs on a device that is off, and an app can come to the
/// foreground only on an unlocked device.
public final class SimulatedDevice: Sendable {
    private struct State {
        var device: DeviceState
        var apps: [String: AppState] = [:]
    }

    private let state: Mutex<State>
    /// The device's keychain, shared by its apps and kept across app deletion.
    public let keychain: Keychain
    /// The device's wall clock: the world's time plus the device's skew.
    public let clock: DeviceClock
    /// The device's randomness (`SecRandomCopyBytes` in the app's eyes): seeded for a
    /// reproducible run, the system's otherwise.
    public let random: any RandomSource
    /// The device's network: conditions applied to every request its apps send.
    public let network: ConditionedTransport

    /// A device that has booted and is unlocked, in the world of `scheduler`.
    /// - Parameters:
    ///   - skew: seconds the device's clock is ahead of the world (negative: behind).
    ///   - random: the device's random source (a `SeededRandom` for a reproducible run).
    ///   - transport: the network beyond the device; latency is slept in virtual time.
    ///   - keychainPath: a file to persist the keychain to, or `nil` to keep it in memory.
    /// - Throws: `DeviceError.storage` when the keychain file cannot be loaded.
    public init(
        scheduler: VirtualScheduler, skew: Int64 = 0, random: any RandomSource, hasPasscode: Bool = true,
        transport: any HTTPTransport, keychainPath: String? = nil
    ) throws(DeviceError) {
        let device = DeviceState(hasPasscode: hasPasscode)
        if let keychainPath {
            keychain = try Keychain(lockState: device.keychainLockState, persistingTo: keychainPath)
        } else {
            keychain = Keychain(lockState: device.keychainLockState)
        }
        state = Mutex(State(device: device))
        clock = DeviceClock(scheduler: scheduler, skew: skew)
        self.random = random
        network = ConditionedTransport(
            inner: transport, now: { scheduler.epochSeconds * 1000 + scheduler.now.milliseconds },
            sleeper: { duration in try await scheduler.sleep(for: duration) })
    }

    /// The world this device lives in.
    public var scheduler: VirtualScheduler { clock.scheduler }

    /// The device's power and lock.
    public var deviceState: DeviceState { state.withLock { $0.device } }

    /// The app with `bundleID`; `notInstalled` when the device never had it.
    public func app(_ bundleID: String) -> AppState {
        state.withLock { $0.apps[bundleID] } ?? AppState(bundleID: bundleID)
    }

    /// Every app the device has known, sorted by bundle ID.
    public var apps: [AppState] {
        state.withLock { $0.apps.values.sorted { $0.bundleID < $1.bundleID } }
    }

    // MARK: Device events

    /// Restarts the device: every app is terminated and the keychain relocks until the first
    /// unlock.
    /// - Returns: the terminations, by bundle ID.
    @discardableResult
    public func reboot() throws(DeviceError) -> [AppTransition] {
        try deviceEvent { (device) throws(DeviceError) in try device.reboot() }
    }

    /// Turns the device off, terminating every app.
    @discardableResult
    public func shutDown() throws(DeviceError) -> [AppTransition] {
        try deviceEvent { (device) throws(DeviceError) in try device.shutDown() }
    }

    /// Turns the device on, locked, before its first unlock.
    public func boot() throws(DeviceError) {
        _ = try deviceEvent { (device) throws(DeviceError) in try device.boot() }
    }

    /// Locks the device: foreground apps go to the background.
    @discardableResult
    public func lock() throws(DeviceError) -> [AppTransition] {
        try deviceEvent { (device) throws(DeviceError) in try device.lock() }
    }

    /// Unlocks the device (the first unlock since boot opens the after-first-unlock classes).
    public func unlock() throws(DeviceError) {
        _ = try deviceEvent { (device) throws(DeviceError) in try device.unlock() }
    }

    /// Sets a passcode.
    public func setPasscode() throws(DeviceError) {
        _ = try deviceEvent { (device) throws(DeviceError) in try device.setPasscode() }
    }

    /// Removes the passcode; the keychain destroys its passcode-set items.
    public func removePasscode() throws(DeviceError) {
        _ = try deviceEvent { (device) throws(DeviceError) in try device.removePasscode() }
    }

    // MARK: App events

    /// Installs an app.
    @discardableResult
    public func install(_ bundleID: String) throws(DeviceError) -> AppTransition {
        try appEvent(bundleID, "install", needsUnlocked: false) { (app) throws(DeviceError) in
            try app.install()
        }
    }

    /// Starts an app's process; a user tap needs the device unlocked, other launches only on.
    @discardableResult
    public func launch(_ bundleID: String, _ kind: LaunchKind = .userTap) throws(DeviceError) -> AppTransition
    {
        try appEvent(bundleID, "launch", needsUnlocked: kind == .userTap) { (app) throws(DeviceError) in
            try app.launch(kind)
        }
    }

    /// Brings a running app to the foreground, active; needs the device unlocked.
    @discardableResult
    public func foreground(_ bundleID: String) throws(DeviceError) -> AppTransition {
        try appEvent(bundleID, "foreground", needsUnlocked: true) { (app) throws(DeviceError) in
            try app.foreground()
        }
    }

    /// Makes the active app inactive (a system sheet covers it).
    @discardableResult
    public func resignActive(_ bundleID: String) throws(DeviceError) -> AppTransition {
        try appEvent(bundleID, "resign active", needsUnlocked: false) { (app) throws(DeviceError) in
            try app.resignActive()
        }
    }

    /// Sends a foreground app to the background.
    @discardableResult
    public func background(_ bundleID: String) throws(DeviceError) -> AppTransition {
        try appEvent(bundleID, "background", needsUnlocked: false) { (app) throws(DeviceError) in
            try app.background()
        }
    }

    /// Ends an app's process.
    @discardableResult
    public func terminate(_ bundleID: String) throws(DeviceError) -> AppTransition {
        try appEvent(bundleID, "terminate", needsUnlocked: false) { (app) throws(DeviceError) in
            try app.terminate()
        }
    }

    /// Deletes an app: its preferences go, its keychain items stay.
    @discardableResult
    public func uninstall(_ bundleID: String) throws(DeviceError) -> AppTransition {
        try appEvent(bundleID, "uninstall", needsUnlocked: false) { (app) throws(DeviceError) in
            try app.uninstall()
        }
    }

    /// Deletes and installs an app again: preferences wiped, keychain kept (field bug 16).
    @discardableResult
    public func reinstall(_ bundleID: String) throws(DeviceError) -> AppTransition {
        try appEvent(bundleID, "reinstall", needsUnlocked: false) { (app) throws(DeviceError) in
            try app.reinstall()
        }
    }

    // MARK: Preferences

    /// A value from the app's `UserDefaults`.
    public func preference(_ key: String, of bundleID: String) -> JSONValue? {
        state.withLock { $0.apps[bundleID]?.preferences[key] }
    }

    /// Sets (or with `nil`, removes) a value in the app's `UserDefaults`.
    /// - Throws: `DeviceError.invalidLifecycleState` when the app is not installed.
    public func setPreference(_ value: JSONValue?, forKey key: String, of bundleID: String)
        throws(DeviceError)
    {
        try state.withLock { (state) throws(DeviceError) in
            guard let app = state.apps[bundleID], app.phase != .notInstalled else {
                throw DeviceError(
                    .invalidLifecycleState, "cannot set preference \(key) of \(bundleID): not installed")
            }
            state.apps[bundleID]?.preferences[key] = value
        }
    }

    // MARK: Helpers

    private func deviceEvent(
        _ event: (inout DeviceState) throws(DeviceError) -> DeviceAction
    ) throws(DeviceError) -> [AppTransition] {
        try state.withLock { (state) throws(DeviceError) -> [AppTransition] in
            let action = try event(&state.device)
            var transitions: [AppTransition] = []
            for bundleID in state.apps.keys.sorted() {
                guard var app = state.apps[bundleID] else { continue }
                defer { state.apps[bundleID] = app }
                switch action {
                case .terminateAllApps where app.phase.isRunning:
                    transitions.append(try app.terminate())
                case .moveForegroundAppsToBackground where app.phase.isForeground:
                    transitions.append(try app.background())
                default:
                    break
                }
            }
            do {
                try keychain.setLockState(state.device.keychainLockState)
            } catch {
                throw DeviceError(.storage, "keychain: \(error)")
            }
            return transitions
        }
    }

    private func appEvent(
        _ bundleID: String, _ action: String, needsUnlocked: Bool,
        _ event: (inout AppState) throws(DeviceError) -> AppTransition
    ) throws(DeviceError) -> AppTransition {
        try state.withLock { (state) throws(DeviceError) -> AppTransition in
            guard state.device.isPoweredOn else {
                throw DeviceError(.invalidLifecycleState, "cannot \(action) \(bundleID): the device is off")
            }
            if needsUnlocked, !state.device.isUnlocked {
                throw DeviceError(
                    .invalidLifecycleState, "cannot \(action) \(bundleID): the device is locked")
            }
            var app = state.apps[bundleID] ?? AppState(bundleID: bundleID)
            let transition = try event(&app)
            state.apps[bundleID] = app
            return transition
        }
    }
}
