import Foundation
import HTTPCore
import Simulator
import WebAuthSession
import WebKitSession
import WorldVocabulary

/// The `webkit` engine next to `lite`, against the embedded issuer (docs/benchmarks.md):
///   - start-up: a helper launched and ready (Xvfb, GTK, WebKit), `rounds` times;
///   - one web sign-in (an ephemeral sheet: login, consent, callback, code exchange) in each
///     engine, `signIns` times after a warm-up: median and 90th percentile;
///   - memory: the engine's processes (helper, Xvfb, WebKit's network and web processes) by
///     proportional set size, idle, then with `openSheets` sheets left up (the cost of one);
///   - `sequential` sign-ins one after the other in one engine, the engine's memory every
///     quarter: flat, or growing with each sheet.
/// Targets: a sign-in under 1 s median after start-up (the library's figures, and its targets,
/// are `scripts/benchmarks/browser.sh`'s).
func benchBrowser(rounds: Int, signIns: Int, openSheets: Int, sequential: Int) async throws {
    let located = try WebKitEngine.locate()
    print("WebKit engine: \(located.helperPath)")

    var startups: [Double] = []
    for _ in 0..<rounds {
        let engine = WebKitEngine(helperPath: located.helperPath)
        let started = ContinuousClock.now
        try await engine.start()
        startups.append(milliseconds(ContinuousClock.now - started))
        await engine.shutdown()
    }
    print(
        String(
            format: "engine start-up (helper, Xvfb, WebKit) x%d:  median %6.0f ms  best %6.0f ms",
            rounds, median(startups), startups.min() ?? 0))

    let engine = WebKitEngine(helperPath: located.helperPath)
    try await engine.start()
    let world = try await SimulationWorld.embedded(
        epoch: Int64(Date().timeIntervalSince1970), webKit: engine)
    var timings: [BrowserEngine: [Double]] = [:]
    for browser in [BrowserEngine.lite, .webkit] {
        let app = try await launchedApp(in: world, browser: browser)
        _ = try await signInAndOut(app)  // warm-up: discovery, keys, the engine's first page
        var samples: [Double] = []
        for _ in 0..<signIns { samples.append(try await signInAndOut(app)) }
        timings[browser] = samples
    }
    for browser in [BrowserEngine.lite, .webkit] {
        let samples = timings[browser] ?? []
        let target =
            browser == .webkit
            ? (median(samples) < 1000 ? "  target < 1 s: meets" : "  target < 1 s: MISSED") : ""
        print(
            String(
                format: "web sign-in in %-6@ x%d:  median %7.1f ms  p90 %7.1f ms%@",
                browser.rawValue as NSString,
                samples.count, median(samples), percentile(samples, 0.9), target as NSString))
    }

    let idle = engineMemory(engine)
    print(
        String(
            format: "engine memory, idle after the sign-ins:  %6.1f MB PSS (%@)", idle.megabytes,
            idle.parts as NSString))
    let apps = try await (0..<openSheets).asyncMap { _ in try await launchedApp(in: world, browser: .webkit) }
    var sheets: [Task<Void, Never>] = []
    for app in apps {
        app.webUser = WebUserScript.signIn(
            username: "alice@example.com", password: "alice-password", interruption: .abandon(at: .login))
        sheets.append(Task { _ = try? await app.perform { try await $0.signIn() } })
    }
    let deadline = ContinuousClock.now + .seconds(30)
    while apps.contains(where: { $0.lastWebTrace.isEmpty && $0.isPresentingSheet }),
        ContinuousClock.now < deadline
    {
        try await Task.sleep(for: .milliseconds(100))
    }
    try await Task.sleep(for: .seconds(1))
    let loaded = engineMemory(engine)
    print(
        String(
            format: "engine memory with %d sheets up:       %6.1f MB PSS, %5.1f MB a sheet (%@)", openSheets,
            loaded.megabytes, (loaded.megabytes - idle.megabytes) / Double(max(1, openSheets)),
            loaded.parts as NSString))
    for app in apps { try? app.terminate() }
    for sheet in sheets { await sheet.value }

    let app = try await launchedApp(in: world, browser: .webkit)
    var marks: [String] = []
    let started = ContinuousClock.now
    for index in 1...sequential {
        _ = try await signInAndOut(app)
        if index % max(1, sequential / 4) == 0 {
            marks.append(String(format: "%d: %.1f MB", index, engineMemory(engine).megabytes))
        }
    }
    print(
        "\(sequential) sequential sign-ins in one engine, \(Int(milliseconds(ContinuousClock.now - started) / 1000)) s;"
            + " engine memory after each quarter: " + marks.joined(separator: ", "))
    await world.shutdown()
    await engine.shutdown()
}

/// An app of its own phone, launched, whose sheets run in `browser` (ephemeral).
private func launchedApp(in world: SimulationWorld, browser: BrowserEngine) async throws -> SimulatedApp {
    var configuration = world.defaultAppConfiguration()
    configuration.browser = browser
    let app = try world.addPhone().install(configuration)
    try await app.launch()
    app.webUser = .signIn(username: "alice@example.com", password: "alice-password")
    return app
}

/// One web sign-in (milliseconds), then a local sign-out.
private func signInAndOut(_ app: SimulatedApp) async throws -> Double {
    let started = ContinuousClock.now
    _ = try await app.perform { try await $0.signIn() }
    let elapsed = milliseconds(ContinuousClock.now - started)
    _ = try await app.perform { try await $0.signOut(callEndSession: false) }
    return elapsed
}

/// The proportional set size of the engine's helper and everything it started.
private func engineMemory(_ engine: WebKitEngine) -> (megabytes: Double, parts: String) {
    guard let helper = engine.helperPID else { return (0, "no helper") }
    var total = 0.0
    var parts: [String: Double] = [:]
    for pid in processTree(root: helper) {
        guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
            let line = rollup.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { continue }
        let name =
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        total += kilobytes / 1024
        parts[name, default: 0] += kilobytes / 1024
    }
    let summary = parts.sorted { $0.value > $1.value }.map { String(format: "%@ %.0f", $0.key, $0.value) }
    return (total, summary.joined(separator: ", "))
}

/// `root` and its descendants, from /proc.
private func processTree(root: Int32) -> [Int32] {
    var children: [Int32: [Int32]] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(name),
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        if fields.count > 1, let parent = Int32(fields[1]) { children[parent, default: []].append(pid) }
    }
    var tree = [root]
    var index = 0
    while index < tree.count {
        tree += children[tree[index]] ?? []
        index += 1
    }
    return tree
}

private func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

private func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

extension Range where Bound == Int {
    fileprivate func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for value in self { results.append(try await transform(value)) }
        return results
    }
}
