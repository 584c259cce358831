import Device
import Testing

/// The device's errors show their stable code first, for reports.
@Test func deviceErrorDescriptionStartsWithCode() {
    let error = DeviceError(.invalidLifecycleState, "the app is not installed")
    #expect(error.description == "invalid_lifecycle_state: the app is not installed")
}
