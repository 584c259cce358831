import Device

/// The app and device steps are the events the device declares (Device's `AppEvent` and
/// `DeviceEvent`), named as it names them; its `AppState` and `DeviceState` rules decide which
/// are allowed when.
extension AppEvent {
    /// The app events a scenario causes by name, in the order the documentation lists them:
    /// every `AppEvent` but a background launch, which the system makes (a push, a fetch) and
    /// which no step stands for.
    static var steps: [AppEvent] { allCases.filter { $0 != .launch(.background) } }
}
