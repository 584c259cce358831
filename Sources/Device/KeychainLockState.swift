/// What the keychain knows of the device's lock: the inputs of the data-protection rules.
///
/// Apple Platform Security, "Data Protection classes": class keys for
/// `NSFileProtectionComplete` (the when-unlocked keychain classes) are discarded shortly after
/// the device locks; the `CompleteUntilFirstUserAuthentication` key (the after-first-unlock
/// classes) stays in memory from the first unlock until the next reboot. Without a passcode
/// the class keys are protected by the device's UID alone and are always available, except
/// that nothing can be stored in the passcode-set class.
public struct KeychainLockState: Hashable, Sendable, CustomStringConvertible {
    /// The user has unlocked the device at least once since it booted.
    public var hasBeenUnlockedSinceBoot: Bool
    /// The device is unlocked now.
    public var isUnlocked: Bool
    /// A passcode is set.
    public var hasPasscode: Bool

    public init(hasBeenUnlockedSinceBoot: Bool, isUnlocked: Bool, hasPasscode: Bool) {
        self.hasBeenUnlockedSinceBoot = hasBeenUnlockedSinceBoot
        self.isUnlocked = isUnlocked
        self.hasPasscode = hasPasscode
    }

    /// A device with a passcode, unlocked: every class is available.
    public static let unlocked = KeychainLockState(
        hasBeenUnlockedSinceBoot: true, isUnlocked: true, hasPasscode: true)
    /// A device with a passcode, just booted, not yet unlocked: only `always` is available.
    public static let beforeFirstUnlock = KeychainLockState(
        hasBeenUnlockedSinceBoot: false, isUnlocked: false, hasPasscode: true)
    /// A device with a passcode, locked after the first unlock: after-first-unlock and always.
    public static let lockedAfterFirstUnlock = KeychainLockState(
        hasBeenUnlockedSinceBoot: true, isUnlocked: false, hasPasscode: true)

    /// Whether items of `accessibility` can be read and written in this state.
    public func allows(_ accessibility: KeychainAccessibility) -> Bool {
        switch accessibility {
        case .always:
            return true
        case .whenPasscodeSetThisDeviceOnly:
            return hasPasscode && isUnlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly:
            return !hasPasscode || hasBeenUnlockedSinceBoot || isUnlocked
        case .whenUnlocked, .whenUnlockedThisDeviceOnly:
            return !hasPasscode || isUnlocked
        }
    }

    public var description: String {
        let lock =
            isUnlocked ? "unlocked" : (hasBeenUnlockedSinceBoot ? "locked" : "locked before first unlock")
        return "\(lock), \(hasPasscode ? "passcode set" : "no passcode")"
    }
}
