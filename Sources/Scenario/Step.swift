public import Device

/// One step of a scenario, with where it is written.
public struct Step: Hashable, Sendable {
    public var action: StepAction
    /// The step's name as written (`signIn`, `advance`, `expect`, …), for reports.
    public var name: String
    public var location: SourceLocation

    public init(_ action: StepAction, name: String, location: SourceLocation) {
        self.action = action
        self.name = name
        self.location = location
    }
}

extension Step {
    /// Whether the step is a `runFlow` include (or a parallel branch's sequence).
    public var isInclude: Bool {
        if case .flow(.include) = action { return true }
        return false
    }
}

/// What a step does.
public enum StepAction: Hashable, Sendable {
    /// An app lifecycle action on one app (`app` nil: the scenario's first app).
    case app(AppEvent, app: String?)
    /// A device action.
    case device(DeviceEvent)
    /// A change to the world around the app: time, network, Apple, the issuer.
    case world(WorldChange)
    /// A call into the app's SDK and the outcomes allowed (nil: it must succeed). Several fit a
    /// race whose winner is not fixed.
    case sdk(SDKCall, app: String?, expectedOutcomes: [CallOutcome]?)
    /// A step that orders or checks other steps.
    case flow(FlowAction)
}

extension StepAction {
    /// The declared step that does this (a `runFlow` include: `runFlow`), whose name the
    /// encoder writes.
    public var kind: StepKind {
        switch self {
        case .app(let event, _): .app(event)
        case .device(let event): .device(event)
        case .world(let change): .world(change.step)
        case .sdk(let call, _, _): .sdk(call.step)
        case .flow(.parallel): .flow(.parallel)
        case .flow(.include): .flow(.runFlow)
        case .flow(.expect): .flow(.expect)
        case .flow(.wait): .flow(.wait)
        }
    }
}
