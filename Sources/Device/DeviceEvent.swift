/// What the phone's owner does to the device itself, by name: restarts it, locks it, unlocks it
/// (`SimulatedDevice.reboot()`, `lock()`, `unlock()`). The scenario format's device steps are
/// these. What `DeviceState` then asks of its owner is a `DeviceAction`.
///
/// Power and passcode changes (`shutDown()`, `boot()`, `setPasscode()`, `removePasscode()`)
/// are the harness's, and have no name here.
public enum DeviceEvent: String, Hashable, Sendable, CaseIterable {
    /// Restart: every app terminated, the keychain locked until the first unlock.
    case reboot
    case lock
    case unlock
}
