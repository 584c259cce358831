import Foundation
import Locking

/// The real browser engine of the sheet: WebKitGTK, run by the helper `signinsim-webkit` in a
/// process of its own, started on first use and started again after it crashed.
///
/// One engine serves every phone of a run (each phone has its stores in it, see
/// ``WebKitBrowser``), as one Safari serves every app on an iPhone: its start-up (a quarter of
/// a second, an Xvfb, WebKit's network process) is paid once.
public final class WebKitEngine: Sendable {
    /// The helper executable.
    public let helperPath: String
    private let state = Mutex(State())
    private let startup = Mutex<Task<WebKitHelperProcess, any Error>?>(nil)

    private struct State {
        var helper: WebKitHelperProcess?
        var launches = 0
        var closed = false
    }

    /// Every engine of this process, so that an interrupted run can end them all.
    private static let all = Mutex<[ObjectIdentifier: WebKitEngine]>([:])

    public init(helperPath: String) {
        self.helperPath = helperPath
        Self.all.withLock { $0[ObjectIdentifier(self)] = self }
    }

    /// The Debian packages the engine needs at run time.
    public static let runtimePackages = ["libwebkitgtk-6.0-4", "xvfb", "xauth"]
    /// What builds the helper.
    public static let buildPackages = ["libwebkitgtk-6.0-dev", "xvfb", "xauth"]

    /// Finds the helper: `SIGNINSIM_WEBKIT_HELPER`, else `signinsim-webkit` beside the running
    /// executable; checks that it runs and that Xvfb is installed.
    ///
    /// - Throws: `notInstalled`, with the packages to install, when anything is missing.
    public static func locate() throws(WebKitEngineError) -> WebKitEngine {
        try locate(environment: ProcessInfo.processInfo.environment)
    }

    /// ``locate()`` with the environment given.
    public static func locate(environment: [String: String]) throws(WebKitEngineError) -> WebKitEngine {
        let path: String
        if let explicit = environment["SIGNINSIM_WEBKIT_HELPER"], !explicit.isEmpty {
            path = explicit
        } else {
            let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
            let sibling = executable.deletingLastPathComponent().appendingPathComponent("signinsim-webkit")
                .path
            let fromProc = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map
            {
                URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(
                    "signinsim-webkit"
                ).path
            }
            path =
                [fromProc, sibling].compactMap { $0 }.first {
                    FileManager.default.isExecutableFile(atPath: $0)
                }
                ?? fromProc ?? sibling
        }
        let install =
            "install \(buildPackages.joined(separator: " ")) (apt-get install -y "
            + "\(buildPackages.joined(separator: " ")); scripts/setup does) and build the helper "
            + "(swift build --product signinsim-webkit)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw WebKitEngineError(
                .notInstalled, "the WebKit engine is not installed: no \(path); \(install)")
        }
        let searchPath = environment["PATH"] ?? "/usr/bin:/bin"
        let hasXvfb = searchPath.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/Xvfb")
        }
        guard hasXvfb else {
            throw WebKitEngineError(
                .notInstalled,
                "the WebKit engine needs Xvfb, which is not on PATH: install \(runtimePackages.joined(separator: " "))"
                    + " (apt-get install -y \(runtimePackages.joined(separator: " ")))")
        }
        // The helper links WebKitGTK: `--version` fails to load without its libraries.
        let probe = SpawnedHelper.probe(path: path, arguments: ["--version"])
        guard probe.status == 0 else {
            throw WebKitEngineError(
                .notInstalled,
                "\(path) does not run (\(probe.errors.trimmingCharacters(in: .whitespacesAndNewlines))): install "
                    + "\(runtimePackages.joined(separator: " ")) (apt-get install -y "
                    + "\(runtimePackages.joined(separator: " ")))")
        }
        return WebKitEngine(helperPath: path)
    }

    /// How many helpers this engine has started: one, plus one per crash.
    public var launches: Int { state.withLock { $0.launches } }

    /// The running helper's process id, if one runs.
    public var helperPID: Int32? { state.withLock { $0.helper?.isAlive == true ? $0.helper?.pid : nil } }

    /// Starts the helper now, rather than at the first sheet.
    public func start() async throws(WebKitEngineError) {
        _ = try await helper()
    }

    /// The helper, started now if none runs (or the last one died).
    func helper() async throws(WebKitEngineError) -> WebKitHelperProcess {
        let current: WebKitHelperProcess? = state.withLock { state in
            guard let helper = state.helper, helper.isAlive else { return nil }
            return helper
        }
        if let current { return current }
        if state.withLock({ $0.closed }) {
            throw WebKitEngineError(.crashed, "the WebKit engine was shut down")
        }
        // One start at a time: sheets that ask together share it.
        let task: Task<WebKitHelperProcess, any Error> = startup.withLock { startup in
            if let running = startup { return running }
            let path = helperPath
            let task = Task { () throws -> WebKitHelperProcess in
                try await WebKitHelperProcess.launch(path: path)
            }
            startup = task
            return task
        }
        do {
            let helper = try await task.value
            startup.withLock { if $0 == task { $0 = nil } }
            state.withLock { state in
                if state.helper !== helper {
                    state.helper = helper
                    state.launches += 1
                }
            }
            return helper
        } catch {
            startup.withLock { if $0 == task { $0 = nil } }
            if let error = error as? WebKitEngineError { throw error }
            throw WebKitEngineError(.cannotStart, "\(error)")
        }
    }

    /// Quits the helper; the engine starts none after this.
    public func shutdown() async {
        let helper = state.withLock { state in
            state.closed = true
            return state.helper
        }
        await helper?.quit()
        _ = Self.all.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    /// Kills every helper of this process at once: for a run that is being interrupted.
    public static func killAll() {
        for engine in all.withLock({ Array($0.values) }) {
            engine.state.withLock { $0.helper }?.kill()
        }
    }

    /// Kills the running helper as a crash would (for tests of crash handling).
    public func killHelper() {
        state.withLock { $0.helper }?.kill()
    }
}
