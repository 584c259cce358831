/// A lifecycle event that happened to an app, named after the UIKit callback or user action
/// (`application(_:didFinishLaunchingWithOptions:)`, `sceneDidBecomeActive`, …).
public enum AppEvent: Hashable, Sendable, CustomStringConvertible {
    case install
    case launch(LaunchKind)
    case foreground
    case resignActive
    case background
    case terminate
    case uninstall
    case reinstall

    public var description: String {
        switch self {
        case .install: "install"
        case .launch(let kind): "launch(\(kind.rawValue))"
        case .foreground: "foreground"
        case .resignActive: "resignActive"
        case .background: "background"
        case .terminate: "terminate"
        case .uninstall: "uninstall"
        case .reinstall: "reinstall"
        }
    }
}

/// What an event did to an app, from one `UIApplication.State` to another: the record a runner
/// logs and in-memory state owners react to.
public struct AppTransition: Hashable, Sendable, CustomStringConvertible {
    public var bundleID: String
    public var event: AppEvent
    public var from: AppPhase
    public var to: AppPhase
    /// The app's generation after the event.
    public var generation: Int

    public init(bundleID: String, event: AppEvent, from: AppPhase, to: AppPhase, generation: Int) {
        self.bundleID = bundleID
        self.event = event
        self.from = from
        self.to = to
        self.generation = generation
    }

    /// Whether the event ended a process, taking its in-memory state with it.
    public var endedProcess: Bool { from.isRunning && !to.isRunning }

    public var description: String {
        "\(bundleID) \(event): \(from.label) → \(to.label) (generation \(generation))"
    }
}
