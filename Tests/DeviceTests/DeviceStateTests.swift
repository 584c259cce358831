import Device
import Testing

@Suite("Device state")
struct DeviceStateTests {
    /// A reboot relocks the device until its first unlock; later unlocks are not first unlocks.
    @Test func rebootNeedsFirstUnlockAgain() throws {
        var device = DeviceState()
        #expect(device.keychainLockState == .unlocked)
        #expect(try device.reboot() == .terminateAllApps)
        #expect(device.bootCount == 2)
        #expect(device.keychainLockState == .beforeFirstUnlock)
        #expect(try device.unlock() == .firstUnlock)
        #expect(try device.lock() == .moveForegroundAppsToBackground)
        #expect(device.keychainLockState == .lockedAfterFirstUnlock)
        #expect(try device.unlock() == DeviceAction.none)
    }

    /// Events that cannot happen are refused with a message saying why.
    @Test func illegalDeviceEvents() throws {
        var device = DeviceState()
        #expect(
            throws: DeviceError(.invalidLifecycleState, "cannot unlock the device: it is already unlocked")
        ) {
            try device.unlock()
        }
        _ = try device.lock()
        #expect(throws: DeviceError(.invalidLifecycleState, "cannot lock the device: it is already locked")) {
            try device.lock()
        }
        #expect(
            throws: DeviceError(.invalidLifecycleState, "cannot remove the passcode: the device is locked")
        ) {
            try device.removePasscode()
        }
        _ = try device.shutDown()
        #expect(throws: DeviceError(.invalidLifecycleState, "cannot reboot the device: it is off")) {
            try device.reboot()
        }
        _ = try device.boot()
        #expect(throws: DeviceError(.invalidLifecycleState, "cannot boot the device: it is already on")) {
            try device.boot()
        }
    }

    /// Passcode changes need an unlocked device and report the destruction of passcode items.
    @Test func passcode() throws {
        var device = DeviceState(hasPasscode: false)
        #expect(throws: DeviceError(.invalidLifecycleState, "cannot remove the passcode: none is set")) {
            try device.removePasscode()
        }
        #expect(try device.setPasscode() == DeviceAction.none)
        #expect(try device.removePasscode() == .destroyPasscodeProtectedItems)
        #expect(!device.hasPasscode)
    }
}
