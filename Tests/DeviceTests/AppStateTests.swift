import Device
import JSON
import Testing

@Suite("App state")
struct AppStateTests {
    /// A full life: install, cold launch, inactive, background, foreground, terminate, relaunch.
    @Test func ordinaryLife() throws {
        var app = AppState(bundleID: "com.example.app")
        #expect(app.phase == .notInstalled)
        #expect(try app.install().to == .notRunning)
        let launch = try app.launch(.userTap)
        #expect(
            launch
                == AppTransition(
                    bundleID: "com.example.app", event: .launch(.userTap), from: .notRunning,
                    to: .foregroundActive,
                    generation: 1))
        #expect(try app.resignActive().to == .foregroundInactive)
        #expect(try app.background().to == .background)
        #expect(try app.foreground().to == .foregroundActive)
        let terminate = try app.terminate()
        #expect(terminate.endedProcess)
        #expect(app.launchKind == nil)
        #expect(try app.launch(.background).to == .background)
        #expect(app.generation == 2)
        #expect(app.launchKind == .background)
    }

    /// A prewarmed app runs unseen and keeps its process (same generation) when it comes forward.
    @Test func prewarmedLaunch() throws {
        var app = AppState(bundleID: "com.example.app")
        _ = try app.install()
        #expect(try app.launch(.prewarm).to == .background)
        #expect(app.launchKind == .prewarm)
        let foreground = try app.foreground()
        #expect(foreground.generation == 1)
        #expect(!foreground.endedProcess)
    }

    /// Illegal events are refused with a precise message and change nothing.
    @Test func illegalAppEvents() throws {
        var app = AppState(bundleID: "com.example.app")
        #expect(throws: DeviceError(.invalidLifecycleState, "cannot launch com.example.app: not installed")) {
            try app.launch(.userTap)
        }
        _ = try app.install()
        #expect(
            throws: DeviceError(.invalidLifecycleState, "cannot install com.example.app: already installed")
        ) {
            try app.install()
        }
        #expect(throws: DeviceError(.invalidLifecycleState, "cannot foreground com.example.app: not running"))
        {
            try app.foreground()
        }
        #expect(throws: DeviceError(.invalidLifecycleState, "cannot terminate com.example.app: not running"))
        {
            try app.terminate()
        }
        _ = try app.launch(.userTap)
        let before = app
        #expect(
            throws: DeviceError(
                .invalidLifecycleState, "cannot launch com.example.app: already running (foreground-active)")
        ) { try app.launch(.background) }
        #expect(
            throws: DeviceError(
                .invalidLifecycleState, "cannot foreground com.example.app: already foreground-active")
        ) {
            try app.foreground()
        }
        _ = try app.background()
        #expect(
            throws: DeviceError(
                .invalidLifecycleState, "cannot background com.example.app: already in the background")
        ) {
            try app.background()
        }
        #expect(
            throws: DeviceError(
                .invalidLifecycleState, "cannot resign active com.example.app: in the background")
        ) {
            try app.resignActive()
        }
        #expect(before.generation == app.generation)
    }

    /// Uninstalling wipes preferences; reinstalling keeps counting generations and installs.
    @Test func reinstallWipesPreferences() throws {
        var app = AppState(bundleID: "com.example.app")
        _ = try app.install()
        _ = try app.launch(.userTap)
        app.preferences["hasRunBefore"] = true
        let transition = try app.reinstall()
        #expect(transition.from == .foregroundActive)
        #expect(transition.to == .notRunning)
        #expect(transition.endedProcess)
        #expect(app.preferences.isEmpty)
        #expect(app.installCount == 2)
        _ = try app.launch(.userTap)
        #expect(app.generation == 2)
        _ = try app.uninstall()
        #expect(
            throws: DeviceError(.invalidLifecycleState, "cannot reinstall com.example.app: not installed")
        ) {
            try app.reinstall()
        }
    }

    /// Every event once, each with a name of its own (the scenario's app steps are named so);
    /// a launch of each kind is an event.
    @Test func eventNames() {
        let names = AppEvent.allCases.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        for kind in LaunchKind.allCases { #expect(AppEvent.allCases.contains(.launch(kind))) }
        #expect(AppEvent.launch(.userTap).name == "launch")
        #expect(AppEvent.launch(.prewarm).name == "prewarm")
        #expect(AppEvent.resignActive.name == "resignActive")
    }
}
