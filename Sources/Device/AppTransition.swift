/// A lifecycle event that happened to an app, named after the UIKit callback or user action
/// (`application(_:didFinishLaunchingWithOptions:)`, `sceneDidBecomeActive`, …).
///
/// The scenario format names its app steps after these events (`AppEvent.name`): one
/// declaration of what can happen to an app, for the state machine and for the steps.
public enum AppEvent: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case install
    /// A new process: by the user's tap (a cold launch), a prewarm, or in the background.
    case launch(LaunchKind)
    case foreground
    case resignActive
    case background
    /// The process is killed: in-memory state lost, requests in flight abandoned.
    case terminate
    case uninstall
    /// Deleted and installed again: preferences wiped, keychain kept.
    case reinstall

    public static var allCases: [AppEvent] {
        [.install] + LaunchKind.allCases.map(AppEvent.launch)
            + [.foreground, .resignActive, .background, .terminate, .uninstall, .reinstall]
    }

    /// The event's name, as a scenario's step writes it: a launch by the user's tap is
    /// `launch`, a prewarm `prewarm`, a background launch `backgroundLaunch` (a name no step
    /// has: the system launches so, for a push or a fetch); the others by their case.
    public var name: String {
        switch self {
        case .launch(.userTap): "launch"
        case .launch(.prewarm): "prewarm"
        case .launch(.background): "backgroundLaunch"
        default: description
        }
    }

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
