import Foundation
import Issuer
import JSON
import Locking
import Scenario
import TestSupport
import Testing
import WorldVocabulary

/// `signinsim run`, `validate`, `list` and `schema` through the built binary: exit codes,
/// reports on disk, selection, sharding and interruption.
@Suite("signinsim run")
struct RunCommandTests {
    static let passing = """
        name: passes
        tags: [smoke]
        steps:
          - launch
          - signIn
          - expect: {session: present}
        """
    static let failing = """
        name: fails
        tags: [web]
        steps:
          - launch
          - signIn
          - expect:
              claims: {email: bob@example.com}
        """

    /// A folder of scenarios: name → text.
    static func folder(_ files: [String: String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for (name, text) in files { _ = try directory.write(text, named: name) }
        return directory
    }

    @Test("all passing exits 0; a failure exits 1 naming the step, place, expected and actual")
    func exitCodes() async throws {
        let good = try Self.folder(["a.yaml": Self.passing])
        let passed = try await SignInSimBinary.run(["run", good.url.path], environment: ["NO_COLOR": "1"])
        #expect(passed.status == 0, "\(passed.standardOutput)\(passed.standardError)")
        #expect(passed.standardOutput.contains("1 passed, 0 failed"))

        let mixed = try Self.folder(["a.yaml": Self.passing, "b.yaml": Self.failing])
        let failed = try await SignInSimBinary.run(["run", mixed.url.path])
        #expect(failed.status == 1)
        #expect(failed.standardOutput.contains("b.yaml:7:7"), "\(failed.standardOutput)")
        #expect(failed.standardOutput.contains("bob@example.com"))
        #expect(failed.standardOutput.contains("alice@example.com"))
        #expect(!failed.standardOutput.contains("\u{1B}["), "no colour off a terminal")
    }

    @Test("an invalid scenario exits 2 before anything runs")
    func invalid() async throws {
        let folder = try Self.folder([
            "a.yaml": Self.passing, "b.yaml": "name: b\nsteps:\n  - signIn: {pasword: x}\n",
        ])
        let result = try await SignInSimBinary.run([
            "run", folder.url.path, "--report-json", folder.url.path + "/r.json",
        ])
        #expect(result.status == 2)
        #expect(result.standardError.contains("b.yaml:3:14: unknown key \"pasword\" in signIn"))
        #expect(!FileManager.default.fileExists(atPath: folder.url.path + "/r.json"))
        let validate = try await SignInSimBinary.run(["validate", folder.url.path])
        #expect(validate.status == 2)
        #expect(validate.standardOutput.contains("1 valid, 1 invalid"))
    }

    @Test(
        "usage mistakes exit 64",
        arguments: [
            ["--shard-split", "3/2"], ["--jobs", "0"], ["--seed", "x"], ["-e", "NOEQUALS"],
            ["--timeout", "9223372036854775807"],
        ])
    func usage(arguments: [String]) async throws {
        let folder = try Self.folder(["a.yaml": Self.passing])
        let result = try await SignInSimBinary.run(["run", folder.url.path] + arguments)
        #expect(result.status == 64, "\(result.standardError)")
    }

    @Test("JSON, JUnit and HAR reports are written")
    func reports() async throws {
        let folder = try Self.folder(["a.yaml": Self.passing, "b.yaml": Self.failing])
        let out = folder.url.path
        let result = try await SignInSimBinary.run([
            "run", out, "--jobs", "2", "--report-json", out + "/reports/run.json", "--junit",
            out + "/reports/junit.xml",
            "--har-dir", out + "/har",
        ])
        #expect(result.status == 1)
        let report = try JSONValue.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: out + "/reports/run.json"))))
        #expect(report["totals"]?["passed"]?.int64Value == 1)
        #expect(report["totals"]?["failed"]?.int64Value == 1)
        let scenarios = report["scenarios"]?.arrayValue ?? []
        #expect(scenarios.map { $0["name"]?.stringValue } == ["passes", "fails"])
        #expect(scenarios[1]["failure"]?["line"]?.int64Value == 7)
        let junit = try String(contentsOfFile: out + "/reports/junit.xml", encoding: .utf8)
        #expect(junit.contains("<testsuites"))
        #expect(junit.contains("<failure"))
        let hars = try FileManager.default.contentsOfDirectory(atPath: out + "/har")
        #expect(hars.count == 2)
        let har = try JSONValue.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: out + "/har/" + hars[0]))))
        #expect((har["log"]?["entries"]?.arrayValue?.count ?? 0) >= 5)
        let text = try String(contentsOfFile: out + "/har/" + hars[0], encoding: .utf8)
        #expect(!text.contains("alice-password"), "passwords are redacted")
        #expect(text.contains("<REDACTED:password:1>"))
    }

    /// Issue 27: a run killed while writing (SIGKILL) left its temporary file in the HAR folder.
    /// The next run removes the temporary files of dead writers from the folders it writes to,
    /// and leaves alone those of live processes and every other file.
    @Test("a run removes stale temporary files from its output folders")
    func staleTemporaryFiles() async throws {
        let folder = try Self.folder(["a.yaml": Self.passing])
        let out = folder.url.path
        // No process has an id this large (Linux caps pid_max at 2^22).
        let dead = "99999999"
        let live = String(getpid())
        let stale = [
            "har/.a.har.\(dead).1x2y3z.tmp", "har/.scenarios-b.har.\(dead).0.tmp",
            "reports/.run.json.\(dead).k9.tmp",
        ]
        let kept = [
            "har/.c.har.\(live).abc.tmp", "har/notes.tmp", "har/.hidden", "har/.x.\(dead).tmp",
            "har/.x.\(dead).UPPER.tmp", "reports/keep.json",
        ]
        for name in stale + kept {
            try FileManager.default.createDirectory(
                atPath: out + "/" + name.split(separator: "/")[0], withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: out + "/" + name, contents: Data("partial".utf8))
        }
        let result = try await SignInSimBinary.run([
            "run", out + "/a.yaml", "--har-dir", out + "/har", "--report-json", out + "/reports/run.json",
        ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        for name in stale {
            #expect(!FileManager.default.fileExists(atPath: out + "/" + name), "\(name)")
        }
        for name in kept {
            #expect(FileManager.default.fileExists(atPath: out + "/" + name), "\(name)")
        }
        let visible = try FileManager.default.contentsOfDirectory(atPath: out + "/har").filter {
            !$0.hasPrefix(".")
        }
        #expect(visible.count == 2 && visible.contains("notes.tmp"), "\(visible)")
        #expect(visible.contains { $0.hasSuffix(".har") }, "\(visible)")
    }

    @Test("tags select any-of; shards split the files with no overlap")
    func selection() async throws {
        let folder = try Self.folder(["a.yaml": Self.passing, "b.yaml": Self.failing, "c.yaml": Self.passing])
        let smoke = try await SignInSimBinary.run(["run", folder.url.path, "--include-tags", "smoke"])
        #expect(smoke.status == 0)
        #expect(smoke.standardOutput.contains("2 passed, 0 failed"))
        let notWeb = try await SignInSimBinary.run(["run", folder.url.path, "--exclude-tags", "web,other"])
        #expect(notWeb.status == 0)
        var listed: [String] = []
        let reports = try TemporaryDirectory()  // not among the scenarios: a .json there is read as one
        for index in 1...2 {
            let shard = try await SignInSimBinary.run([
                "run", folder.url.path, "--shard-split", "\(index)/2", "--report-json",
                reports.url.path + "/s\(index).json",
            ])
            let report = try JSONValue.parse(
                Array(try Data(contentsOf: URL(fileURLWithPath: reports.url.path + "/s\(index).json"))))
            listed += (report["scenarios"]?.arrayValue ?? []).compactMap { $0["file"]?.stringValue }
            #expect(shard.status <= 1)
        }
        #expect(listed.sorted() == ["a.yaml", "b.yaml", "c.yaml"].map { folder.url.path + "/" + $0 })
    }

    @Test("SIGINT: the finished scenarios are reported and the exit code says interrupted")
    func interrupt() async throws {
        // The second scenario's issuer is this server: its discovery request is the evidence that
        // the scenario has started, and it is held until the run is over. The third never starts.
        let asked = ChangeSignal()
        let released = ChangeSignal()
        let state = Mutex((discoveryRequests: 0, released: false))
        var router = Router()
        router.add(.get, "/.well-known/openid-configuration") { _ in
            state.withLock { $0.discoveryRequests += 1 }
            asked.notify()
            _ = await released.wait(until: { state.withLock { $0.released } }, deadline: .now + .seconds(60))
            return .text("held until the run was interrupted", status: 503)
        }
        try await withTestServer(limit: .seconds(90), router: router) { server in
            let held = """
                name: held
                issuer:
                  url: \(server.baseURL)
                  client_id: com.example.app
                  redirect_uri: com.example.app://auth/callback
                steps:
                  - launch
                """
            let folder = try Self.folder(["a.yaml": Self.passing, "b.yaml": held, "c.yaml": held])
            let path = folder.url.path
            let run = try RunningProcess.signInSim([
                "run", path, "--jobs", "1", "--report-json", path + "/r.json",
            ])
            defer {
                state.withLock { $0.released = true }
                released.notify()
            }
            _ = try await run.firstLine()  // the first scenario finished
            try await asked.wait(
                for: "the second scenario to ask its issuer for discovery", within: .seconds(30)
            ) {
                state.withLock { $0.discoveryRequests } > 0
            }
            run.send(SIGINT)
            let exit = try await run.waitForExit(within: .seconds(40))
            #expect(exit.status == 130, "\(run.standardOutput)\(run.standardError)")
            let report = try JSONValue.parse(
                Array(try Data(contentsOf: URL(fileURLWithPath: path + "/r.json"))))
            #expect(report["interrupted"]?.boolValue == true)
            let statuses = (report["scenarios"]?.arrayValue ?? []).compactMap { $0["status"]?.stringValue }
            #expect(statuses == ["passed", "interrupted", "skipped"])
            #expect(state.withLock { $0.discoveryRequests } == 1, "the third scenario started")
        }
    }

    @Test("list and schema")
    func listAndSchema() async throws {
        let folder = try Self.folder(["a.yaml": Self.passing, "flows/x.yaml": "steps: [launch]"])
        let list = try await SignInSimBinary.run(["list", folder.url.path])
        #expect(list.status == 0)
        #expect(list.standardOutput.contains("a.yaml: passes [smoke]"))
        #expect(!list.standardOutput.contains("x.yaml"), "flows/ holds includes, not scenarios")
        let schema = try await SignInSimBinary.run(["schema"])
        #expect(schema.status == 0)
        #expect(
            try JSONValue.parse(schema.standardOutput)["title"]?.stringValue == "SignInSim scenario or flow")
    }

    @Test("list prints the names a scenario may use, from their declarations")
    func listNames() async throws {
        let faults = try await SignInSimBinary.run(["list", "--faults"])
        #expect(faults.status == 0)
        #expect(faults.standardOutput == IssuerFault.allCases.map { $0.rawValue + "\n" }.joined())
        let both = try await SignInSimBinary.run(["list", "--steps", "--errors"])
        let lines = both.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines == ScenarioVocabulary.steps + ScenarioVocabulary.outcomes)
        #expect(lines.contains("signIn") && lines.contains("session_expired") && lines.contains("none"))
    }
}

/// `signinsim replay` on a capture `run --har-dir` wrote: the naive SDK matches the recorded
/// refresh race (exit 0), the default SDK diverges (exit 1), a file that is not HAR exits 2.
@Suite("signinsim replay")
struct ReplayCommandTests {
    @Test func replaysARecordedRace() async throws {
        let folder = try RunCommandTests.folder([
            "field.yaml": try TestCaptures.raceScenario
        ])
        let hars = try TemporaryDirectory()
        let run = try await SignInSimBinary.run(["run", folder.url.path, "--har-dir", hars.url.path])
        #expect(run.status == 0, "\(run.standardOutput)")
        let capture = try #require(try FileManager.default.contentsOfDirectory(atPath: hars.url.path).first)
        let path = hars.url.path + "/" + capture
        // The HAR names the naive profile it ran with; the replay plays it unless told otherwise.
        let naive = try await SignInSimBinary.run(["replay", path])
        #expect(naive.status == 0, "\(naive.standardOutput)\(naive.standardError)")
        #expect(naive.standardOutput.contains("the app behaves as recorded"))
        let correct = try await SignInSimBinary.run(["replay", path, "--sdk-profile", "default"])
        #expect(correct.status == 1)
        #expect(correct.standardOutput.contains("the replayed app did not make this request"))
        let json = try await SignInSimBinary.run(["replay", path, "--format", "json"])
        #expect(json.status == 0)
        let report = try JSONValue.parse(Array(json.standardOutput.utf8))
        #expect(report["behaves_as_recorded"] == true)
        #expect(report["entry_numbering"]?.stringValue == "from 1, in the file's order")
        #expect(report["exchanges"]?.arrayValue?.first?["sender"] == "app")
        let broken = try hars.write("{\"log\":", named: "broken.har")
        let refused = try await SignInSimBinary.run(["replay", broken])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("broken.har:1:8"))
    }

    /// The session capture with its last refresh left out: strict refuses that request,
    /// `--mode new-episodes` sends it to the embedded issuer's token endpoint; the
    /// new-episodes issuer without that mode is a usage error.
    @Test func newEpisodes() async throws {
        let path = try Self.edited { entries in
            let last = entries.lastIndex {
                $0["request"]?["postData"]?["text"]?.stringValue?.contains("grant_type=refresh_token") == true
            }
            if let last { entries.remove(at: last) }
        }
        let strict = try await SignInSimBinary.run(["replay", path])
        #expect(strict.status == 1)
        #expect(
            strict.standardOutput.contains("the capture has no answer for it"), "\(strict.standardOutput)")
        let episodes = try await SignInSimBinary.run(["replay", path, "--mode", "new-episodes"])
        #expect(episodes.status == 1)
        #expect(
            episodes.standardOutput.contains("/oauth/token, which answered"),
            "\(episodes.standardOutput)\(episodes.standardError)")
        let misused = try await SignInSimBinary.run([
            "replay", path, "--new-episodes-issuer", "http://127.0.0.1:9",
        ])
        #expect(misused.status == 64)
        #expect(misused.standardError.contains("--new-episodes-issuer needs --mode new-episodes"))
    }

    /// `--ignore-value` and `--match-value` move a parameter between matched and presence-only:
    /// a capture whose last refresh presented another refresh token matches once refresh_token
    /// counts by presence; a state that must match never does (the app draws its own).
    @Test func matchingIsConfigurable() async throws {
        let path = try Self.edited { entries in
            guard
                let last = entries.lastIndex(where: {
                    $0["request"]?["postData"]?["text"]?.stringValue?.contains("grant_type=refresh_token")
                        == true
                }), case .object(var entry) = entries[last], case .object(var request)? = entry["request"],
                case .object(var post)? = request["postData"], let text = post["text"]?.stringValue
            else { return }
            let edited = text.replacingOccurrences(
                of: #"refresh_token=[^&]*"#, with: "refresh_token=another", options: .regularExpression)
            post["text"] = .string(edited)
            post["params"] = nil
            request["postData"] = .object(post)
            entry["request"] = .object(request)
            entries[last] = .object(entry)
        }
        let plain = try await SignInSimBinary.run(["replay", path])
        #expect(plain.status == 1, "\(plain.standardOutput)")
        let ignored = try await SignInSimBinary.run(["replay", path, "--ignore-value", "refresh_token"])
        #expect(ignored.status == 0, "\(ignored.standardOutput)")
        let strict = try await SignInSimBinary.run(["replay", path, "--match-value", "state"])
        #expect(strict.status == 1, "\(strict.standardOutput)")
    }

    /// The session capture with its entries edited, written to a temporary file.
    static func edited(_ edit: (inout [JSONValue]) -> Void) throws -> String {
        let session = TestCaptures.path("session.har")
        var document = try #require(
            try JSONValue.parse(Array(try String(contentsOfFile: session, encoding: .utf8).utf8)).objectValue)
        var log = try #require(document["log"]?.objectValue)
        var entries = try #require(log["entries"]?.arrayValue)
        edit(&entries)
        log["entries"] = .array(entries)
        document["log"] = .object(log)
        let folder = try TemporaryDirectory()
        Self.folders.withLock { $0.append(folder) }
        return try folder.write(
            String(decoding: JSONValue.object(document).serialized(), as: UTF8.self), named: "edited.har")
    }

    /// Kept alive until the process ends, so the edited captures outlive the helper.
    static let folders = Mutex<[TemporaryDirectory]>([])
}
