import Foundation
import TestSupport
import Testing

/// However `signinsim` ends with a WebKit sheet up (SIGINT, SIGTERM or SIGKILL), nothing it
/// started lives on: not the helper, not its Xvfb, not WebKit's network and web processes.
@Suite("signinsim with the WebKit engine leaves no process behind", .serialized)
struct WebKitProcessTests {
    static let abandoned = """
        name: a sheet left up
        browser: webkit
        steps:
          - launch
          - signIn: {abandon: login}
        """

    @Test(
        "a signal while a sheet is up ends every process of the engine",
        arguments: [SIGINT, SIGTERM, SIGKILL])
    func noProcessOutlivesTheRun(signal: Int32) async throws {
        let folder = try RunCommandTests.folder(["sheet.yaml": Self.abandoned])
        let run = try RunningProcess.signInSim(["run", folder.url.path + "/sheet.yaml", "--timeout", "60"])
        // The sheet is up once the helper has a web process showing the login page.
        let group = try await ProcessTable.wait(
            within: .seconds(60), "a WebKit web process of the run's helper"
        ) {
            ProcessTable.helperGroup(of: run.process.pid).flatMap { group in
                ProcessTable.members(of: group).contains { $0.name.hasPrefix("WebKitWebProces") }
                    ? group : nil
            }
        }
        let started = ProcessTable.members(of: group)
        #expect(started.contains { $0.name == "Xvfb" }, "\(started)")
        #expect(started.contains { $0.name.hasPrefix("WebKitNetworkPr") }, "\(started)")
        run.send(signal)
        let exit = try await run.waitForExit(within: .seconds(30))
        if signal != SIGKILL { #expect(exit.status == 130 || exit.status == 1, "\(run.standardError)") }
        let left = try await ProcessTable.wait(within: .seconds(10), "the engine's processes to end") {
            ProcessTable.members(of: group).isEmpty ? [ProcessTable.Entry]() : nil
        }
        #expect(left.isEmpty)
    }
}

/// The processes of this machine, read from `/proc`.
enum ProcessTable {
    struct Entry: CustomStringConvertible {
        var pid: Int32
        var parent: Int32
        var group: Int32
        var name: String
        var description: String { "\(pid) \(name) (parent \(parent), group \(group))" }
    }

    static func all() -> [Entry] {
        let pids =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.compactMap { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            let name = String(stat[stat.index(after: open)..<close])
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            // state, ppid, pgrp; a zombie has ended already.
            guard fields.count > 2, fields[0] != "Z", let parent = Int32(fields[1]),
                let group = Int32(fields[2])
            else { return nil }
            return Entry(pid: pid, parent: parent, group: group, name: name)
        }
    }

    /// The process group of `parent`'s child `signinsim-webkit` (the helper leads it).
    static func helperGroup(of parent: Int32) -> Int32? {
        all().first { $0.parent == parent && $0.name.hasPrefix("signinsim-webki") }?.group
    }

    static func members(of group: Int32) -> [Entry] { all().filter { $0.group == group } }

    /// Polls `condition` every 200 ms until it gives a value, or fails naming `what` after `limit`.
    static func wait<Value>(
        within limit: Duration, _ what: String, _ condition: () -> Value?
    ) async throws -> Value {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = condition() { return value }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw WaitFailure(description: "gave up waiting \(limit) for \(what)")
    }

    struct WaitFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// What a run says when the WebKit engine is missing: exit 2 and the packages to install when a
/// sheet needs it; a note and the lite engine when only the automatic choice wanted it.
@Suite("signinsim without the WebKit engine")
struct WebKitMissingTests {
    static let pinned = """
        name: needs webkit
        browser: webkit
        steps:
          - launch
          - signIn
        """

    @Test("a scenario that names webkit, with no helper: exit 2 naming the packages")
    func noHelper() async throws {
        let folder = try RunCommandTests.folder(["a.yaml": Self.pinned])
        let run = try await SignInSimBinary.run(
            ["run", folder.url.path], environment: ["SIGNINSIM_WEBKIT_HELPER": folder.url.path + "/none"])
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("libwebkitgtk-6.0-dev xvfb xauth"), "\(run.standardError)")
        #expect(run.standardError.contains("not installed"), "\(run.standardError)")
    }

    @Test("sign-in --browser webkit with no Xvfb on PATH: exit 2 naming xvfb")
    func noXvfb() async throws {
        let run = try await SignInSimBinary.run(
            ["sign-in", "--browser", "webkit"], environment: ["PATH": "/nonexistent"])
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("Xvfb"), "\(run.standardError)")
        #expect(run.standardError.contains("xvfb xauth"), "\(run.standardError)")
    }

    @Test("a real issuer without WebKit runs in lite and says why")
    func fallsBackToLite() async throws {
        let scenario = """
            name: real issuer
            issuer: http://127.0.0.1:9
            steps:
              - launch
            """
        let folder = try RunCommandTests.folder(["a.yaml": scenario])
        let run = try await SignInSimBinary.run(
            ["run", folder.url.path], environment: ["SIGNINSIM_WEBKIT_HELPER": folder.url.path + "/none"])
        #expect(
            run.standardError.contains("sheets run in lite, which runs no JavaScript"), "\(run.standardError)"
        )
        #expect(run.status != 2)
    }
}
