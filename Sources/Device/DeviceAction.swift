/// What the owner of a `DeviceState` must do after an event (swift-nio style: the state machine
/// decides, a thin layer acts).
public enum DeviceAction: Hashable, Sendable {
    /// Nothing beyond applying the new keychain lock state.
    case none
    /// Every running app's process ends (shut down, reboot).
    case terminateAllApps
    /// Foreground apps move to the background (lock).
    case moveForegroundAppsToBackground
    /// The first unlock since boot: the after-first-unlock keychain classes open.
    case firstUnlock
    /// The passcode is gone: `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` items are destroyed.
    case destroyPasscodeProtectedItems
}
