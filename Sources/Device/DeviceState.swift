/// The device's power and lock, as a pure state machine driven by named events.
///
/// Follows iOS: a boot leaves the device locked and not yet unlocked since boot, so the
/// after-first-unlock keychain classes stay closed until the user enters the passcode once
/// (Apple Platform Security, "Data Protection classes"); locking closes the when-unlocked
/// classes again. Each event returns the `DeviceAction` its owner must carry out, or throws
/// `DeviceError.invalidLifecycleState` when it cannot happen in the current state.
public struct DeviceState: Hashable, Sendable {
    public private(set) var isPoweredOn: Bool
    public private(set) var isUnlocked: Bool
    public private(set) var hasBeenUnlockedSinceBoot: Bool
    public private(set) var hasPasscode: Bool
    /// How many times the device has booted.
    public private(set) var bootCount: Int

    /// A device that has booted once and is unlocked, as a scenario usually starts.
    public init(hasPasscode: Bool = true) {
        isPoweredOn = true
        isUnlocked = true
        hasBeenUnlockedSinceBoot = true
        self.hasPasscode = hasPasscode
        bootCount = 1
    }

    /// What the keychain needs to know.
    public var keychainLockState: KeychainLockState {
        KeychainLockState(
            hasBeenUnlockedSinceBoot: isPoweredOn && hasBeenUnlockedSinceBoot,
            isUnlocked: isPoweredOn && isUnlocked, hasPasscode: hasPasscode)
    }

    /// The device turns off: every app dies.
    public mutating func shutDown() throws(DeviceError) -> DeviceAction {
        try requirePoweredOn("shut down")
        isPoweredOn = false
        isUnlocked = false
        hasBeenUnlockedSinceBoot = false
        return .terminateAllApps
    }

    /// The device turns on, locked, before its first unlock.
    public mutating func boot() throws(DeviceError) -> DeviceAction {
        guard !isPoweredOn else { throw Self.invalid("cannot boot the device: it is already on") }
        isPoweredOn = true
        bootCount += 1
        return .none
    }

    /// Shut down then boot: every app dies and the first unlock is needed again.
    public mutating func reboot() throws(DeviceError) -> DeviceAction {
        try requirePoweredOn("reboot")
        let action = try shutDown()
        _ = try boot()
        return action
    }

    /// The user (or auto-lock) locks the device: foreground apps go to the background.
    public mutating func lock() throws(DeviceError) -> DeviceAction {
        try requirePoweredOn("lock")
        guard isUnlocked else { throw Self.invalid("cannot lock the device: it is already locked") }
        isUnlocked = false
        return .moveForegroundAppsToBackground
    }

    /// The user unlocks the device; the first unlock since boot opens the after-first-unlock
    /// keychain classes until the next reboot.
    public mutating func unlock() throws(DeviceError) -> DeviceAction {
        try requirePoweredOn("unlock")
        guard !isUnlocked else { throw Self.invalid("cannot unlock the device: it is already unlocked") }
        isUnlocked = true
        let first = !hasBeenUnlockedSinceBoot
        hasBeenUnlockedSinceBoot = true
        return first ? .firstUnlock : .none
    }

    /// The user sets a passcode in Settings (the device must be unlocked).
    public mutating func setPasscode() throws(DeviceError) -> DeviceAction {
        try requireUnlocked("set a passcode")
        guard !hasPasscode else { throw Self.invalid("cannot set a passcode: one is already set") }
        hasPasscode = true
        return .none
    }

    /// The user turns the passcode off: iOS destroys the passcode-set keychain items.
    public mutating func removePasscode() throws(DeviceError) -> DeviceAction {
        try requireUnlocked("remove the passcode")
        guard hasPasscode else { throw Self.invalid("cannot remove the passcode: none is set") }
        hasPasscode = false
        return .destroyPasscodeProtectedItems
    }

    private func requirePoweredOn(_ action: String) throws(DeviceError) {
        guard isPoweredOn else { throw Self.invalid("cannot \(action) the device: it is off") }
    }

    private func requireUnlocked(_ action: String) throws(DeviceError) {
        try requirePoweredOn(action)
        guard isUnlocked else { throw Self.invalid("cannot \(action): the device is locked") }
    }

    static func invalid(_ message: String) -> DeviceError {
        DeviceError(.invalidLifecycleState, message)
    }
}
