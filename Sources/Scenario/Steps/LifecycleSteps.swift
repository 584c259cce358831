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

extension AppEvent {
    /// The step's declaration: its one key, `app`, the app it happens to.
    var codec: StepCodec {
        let event = self
        return .fields(
            name, summary: nil, [StepField<String?>.app(\.self)], from: nil,
            action: { .app(event, app: $0) },
            root: { action in
                guard case .app(let happened, let app) = action, happened == event else { return nil }
                return app
            })
    }
}
