import Foundation
import HTTPCore
import Issuer
import JSON
import Locking
import Scenario
import ScenarioRunner
import Simulator
import TestSupport
import Testing
import YAML

/// The runner against the embedded issuer: outcomes with their step and place, selection,
/// sharding, determinism, time limits and interruption.
@Suite struct ScenarioRunnerTests {
    static func scenario(_ text: String, file: String = "runner.yaml") throws -> Scenario {
        try ScenarioLoader.parse(Array(text.utf8), file: file)
    }

    static let signInAndRefresh = """
        name: sign in and refresh
        steps:
          - launch
          - signIn
          - advance: 2h
          - getAccessToken
          - expect:
              session: present
              requests: [{path: /oauth/token, params: {grant_type: refresh_token}, count: 1}]
        """

    @Test("a passing scenario records every step")
    func passes() async throws {
        let outcome = await ScenarioRunner.run(try Self.scenario(Self.signInAndRefresh), seed: 1)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        #expect(
            outcome.result.steps.map(\.step) == ["launch", "signIn", "advance", "getAccessToken", "expect"])
        #expect(outcome.result.steps.allSatisfy { $0.outcome == .passed })
        #expect(outcome.exchanges.contains { $0.url.hasSuffix("/oauth/token") && $0.status == 200 })
    }

    @Test("a failed expectation names the check's place, expected and actual; later steps are skipped")
    func failsAtTheCheck() async throws {
        let outcome = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: wrong user
                steps:
                  - launch
                  - signIn
                  - expect:
                      session: present
                      claims: {email: bob@example.com}
                  - signOut
                """), seed: 1)
        let result = outcome.result
        #expect(result.status == .failed)
        let failure = try #require(result.failure)
        #expect(failure.step == "expect")
        #expect(failure.location == SourceLocation(file: "runner.yaml", line: 7, column: 7))
        #expect(failure.expected == #"email: "bob@example.com""#)
        #expect(failure.actual == #""alice@example.com""#)
        #expect(result.steps.map(\.outcome) == [.passed, .passed, .failed, .skipped])
    }

    @Test("SDK errors: expected ones pass, unexpected ones fail with the code")
    func sdkErrors() async throws {
        let expected = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: deny
                steps:
                  - launch
                  - signIn: {consent: deny, error: authorization_denied}
                  - expect: {error: authorization_denied, session: absent}
                """), seed: 1)
        #expect(expected.result.status == .passed, "\(String(describing: expected.result.failure))")
        let unexpected = await ScenarioRunner.run(
            try Self.scenario(
                "name: offline\nsteps:\n  - launch\n  - network: {offline: true}\n  - signIn\n"),
            seed: 1)
        #expect(unexpected.result.status == .failed)
        #expect(
            unexpected.result.failure?.actual == "web_session_failed"
                || unexpected.result.failure?.actual == "transport")
        #expect(unexpected.result.failure?.location.line == 5)
        let wrong = await ScenarioRunner.run(
            try Self.scenario("name: w\nsteps:\n  - launch\n  - signIn: {error: canceled_login}\n"), seed: 1)
        #expect(wrong.result.status == .failed)
        #expect(
            wrong.result.failure?.expected == "canceled_login" && wrong.result.failure?.actual == "success")
    }

    /// The loader, given the issuer's tenant check as `validate` gives it, refuses an invalid
    /// tenant; a scenario read without the check, or made in code (a derived one), with such a
    /// tenant fails at setup, at the same place.
    @Test("an invalid tenant is refused at its place, by the loader and at setup")
    func setupErrors() async throws {
        let text = "name: t\nissuer: {tenant: {clients: [{client_id: 5}]}}\nsteps: [launch]\n"
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.parse(Array(text.utf8), file: "runner.yaml", tenantCheck: TenantLoader.check)
        }
        let unchecked = await ScenarioRunner.run(try Self.scenario(text), seed: 1)
        #expect(unchecked.result.status == .failed)
        #expect(unchecked.result.failure?.step == "setup")
        #expect(unchecked.result.failure?.location.line == 2)
        do throws(ScenarioError) {
            _ = try ScenarioLoader.parse(
                Array(text.utf8), file: "runner.yaml", tenantCheck: TenantLoader.check)
        } catch {
            #expect(error.location.line == 2, "\(error)")
            #expect(error.message.hasPrefix("tenant: "), "\(error)")
        }
        var made = try Self.scenario("name: t\nsteps: [launch]\n")
        let node = try #require(try YAMLParser.parse("clients: [{client_id: 5}]", fileName: "made.yaml"))
        made.issuer = .embedded(tenant: TenantOverride(node: node, file: "made.yaml"))
        let tenant = await ScenarioRunner.run(made, seed: 1)
        #expect(tenant.result.status == .failed)
        #expect(tenant.result.failure?.step == "setup")
        #expect(tenant.result.failure?.location.line == 1)
    }

    @Test("parallel steps race; single flight shares one refresh")
    func parallelRace() async throws {
        let correct = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: single flight
                steps:
                  - launch
                  - signIn
                  - parallel:
                      - getAccessToken: {force: true}
                      - getAccessToken: {force: true}
                  - expect:
                      session: present
                      requests: [{path: /oauth/token, params: {grant_type: refresh_token}, count: 1}]
                """), seed: 3)
        #expect(correct.result.status == .passed, "\(String(describing: correct.result.failure))")
        #expect(correct.result.steps[2].children.count == 2)
    }

    @Test("exchanges hold the device's, the Apple sheet's and the issuer's requests, in order")
    func exchangeSources() async throws {
        let outcome = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: apple
                device: {apple_account: {email: kim@example.com, given_name: Kim}}
                steps: [launch, signInWithApple]
                """), seed: 4)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        let trail = outcome.exchanges.map { "\($0.source) \(URLParts.path(of: $0.url))" }
        #expect(
            trail == [
                "app /.well-known/openid-configuration", "apple /apple/_admin/authorize",
                "app /oauth/token",
                "issuer /apple/auth/token", "issuer /apple/auth/keys", "app /.well-known/jwks.json",
            ])
    }

    @Test("selection: any-of include, any-of exclude")
    func selection() {
        let selection = ScenarioSelection(includeTags: ["smoke", "web"], excludeTags: ["slow"])
        #expect(selection.admits(tags: ["web"]))
        #expect(!selection.admits(tags: ["apple"]))
        #expect(!selection.admits(tags: ["smoke", "slow"]))
        #expect(ScenarioSelection().admits(tags: []))
        #expect(!ScenarioSelection(includeTags: ["smoke"]).admits(tags: []))
    }

    @Test("sharding puts every scenario in exactly one shard", arguments: [1, 2, 3, 7])
    func sharding(count: Int) {
        let files = (0..<20).map { "scenarios/s\($0).yaml" }
        var seen: [String] = []
        for index in 1...count {
            let shard = ScenarioSelection(shard: ShardSplit(index: index, count: count)).shardFiles(files)
            #expect(abs(shard.count - files.count / count) <= 1)
            seen += shard
        }
        #expect(seen.sorted() == files.sorted())
        #expect(Set(seen).count == files.count)
    }

    static func base64URLDecode(_ text: Substring) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64) ?? Data()
    }

    @Test("two runs with one seed make the same choices; another seed makes others")
    func determinism() async throws {
        let scenario = try Self.scenario(Self.signInAndRefresh)
        func fingerprint(_ seed: UInt64) async -> [String] {
            let outcome = await ScenarioRunner.run(scenario, seed: seed)
            return outcome.exchanges.compactMap { exchange -> String? in
                let body = String(decoding: exchange.requestBody, as: UTF8.self)
                // Authorize URLs carry state, nonce and the PKCE challenge; token requests the
                // code, the verifier and the refresh token.
                guard exchange.url.contains("/authorize") || exchange.url.hasSuffix("/oauth/token") else {
                    return nil
                }
                // Token responses: the refresh token, and the ID token's header (the seeded key's
                // kid) and claims; only the ECDSA signature after them is random.
                var answer = ""
                if let response = try? JSONValue.parse(exchange.responseBody),
                    let idToken = response["id_token"]?.stringValue
                {
                    let parts = idToken.split(separator: ".")
                    // at_hash hashes the access token, whose ECDSA signature is random; iss
                    // names the seeded world's port, the same on both runs.
                    var claims =
                        (try? JSONValue.parse(Array(Self.base64URLDecode(parts[1]))))?.objectValue ?? [:]
                    claims["at_hash"] = nil
                    answer =
                        " → \(parts[0]) \(JSONValue.object(claims).serializedString()) "
                        + (response["refresh_token"]?.stringValue ?? "")
                }
                return exchange.url + " " + body + answer
            }
        }
        // Seeds no other test uses, so that no world running alongside holds their ports.
        let first = await fingerprint(0x5eed_0011_d1ce)
        let second = await fingerprint(0x5eed_0011_d1ce)
        let other = await fingerprint(0x5eed_0012_d1ce)
        #expect(first.count == 3)  // the authorize URL, the code exchange, the refresh
        #expect(first == second)
        #expect(first != other)
    }

    /// Against an issuer elsewhere (here another world's embedded issuer, reached only by its
    /// URL), steps that need the embedded issuer's clock or admin API are skipped with the
    /// reason, and the scenario still passes on the rest.
    @Test("against an external issuer, clock and fault steps are skipped with the reason, not failed")
    func externalIssuerSkips() async throws {
        let elsewhere = try await SimulationWorld.embedded(epoch: Int64(Date().timeIntervalSince1970))
        let issuerURL = try #require(elsewhere.identity?.issuerURL)
        let scenario = try Self.scenario(
            """
            name: external
            issuer: {url: "\(issuerURL)", client_id: com.example.app, redirect_uri: "com.example.app://auth/callback"}
            steps:
              - launch
              - signIn
              - advance: 2h
              - issuer: {fault: http-500, count: 1}
              - getAccessToken: {force: true}
              - expect: {session: present}
            """)
        let outcome = await ScenarioRunner.run(scenario, seed: 1)
        await elsewhere.shutdown()
        #expect(outcome.result.status == .passed)
        let records = outcome.result.steps
        #expect(records.map(\.outcome) == [.passed, .passed, .skipped, .skipped, .passed, .passed])
        #expect(records[2].note?.contains("needs the embedded issuer's clock") == true)
        #expect(records[3].note?.contains("needs the embedded issuer") == true)
    }

    /// A user made through the issuer's admin API signs in; the password reaches the form only
    /// through `fill` (the scripted user's own password is Alice's), and `configure` runs again
    /// after launch.
    @Test("issuer user, configure and fill steps")
    func userConfigureAndFill() async throws {
        let scenario = try Self.scenario(
            """
            name: carol
            steps:
              - issuer: {user: {email: carol@example.com, password: carol-password, name: Carol Cat}}
              - launch
              - configure
              - signIn: {username: carol@example.com, fill: {password: carol-password}}
              - expect:
                  session: present
                  claims: {email: carol@example.com, name: Carol Cat}
                  requests:
                    - {endpoint: discovery, count: 2}
            """)
        let outcome = await ScenarioRunner.run(scenario, seed: 0x5eed_0031_d1ce)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        #expect(outcome.result.steps.map(\.outcome) == Array(repeating: .passed, count: 5))
    }

    /// Moving the issuer's clock through its admin API moves the world: the access token the
    /// app holds expires, and the next call refreshes it.
    @Test("issuer clock step: the world ages with the issuer's clock")
    func issuerClock() async throws {
        let scenario = try Self.scenario(
            """
            name: issuer clock
            steps:
              - launch
              - signIn
              - getAccessToken
              - issuer: {clock: {advance: 2h}}
              - getAccessToken
              - issuer: {clock: {offset: 3h}}
              - getAccessToken
              - expect:
                  requests: [{path: /oauth/token, params: {grant_type: refresh_token}, count: 2}]
            """)
        let outcome = await ScenarioRunner.run(scenario, seed: 0x5eed_0041_d1ce)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
    }

    /// Reports name the issuer's URL (a lost response's note, an issuer mismatch), so a seeded
    /// world listens on a port drawn from its seed.
    @Test("two suite runs with one seed give the same results apart from timings")
    func reportDeterminism() async throws {
        let scenarios = try [
            Self.scenario(Self.signInAndRefresh, file: "a.yaml"),
            Self.scenario(
                """
                name: lost response
                steps:
                  - launch
                  - signIn
                  - network: {lose_responses: {count: 1, path: /oauth/token}}
                  - renewSession: {error: transport}
                """, file: "b.yaml"),
        ]
        func run() async -> [ScenarioResult] {
            var options = ScenarioSuite.Options()
            options.seed = 0x5eed_0021_d1ce
            options.jobs = 2
            return await ScenarioSuite(options: options).run(scenarios) { _ in }.map(Self.withoutTimings)
        }
        let first = await run()
        let second = await run()
        #expect(first.map(\.status) == [.passed, .passed])
        #expect(first[1].steps[3].note?.contains("http://127.0.0.1:") == true)
        #expect(first == second)
    }

    static func withoutTimings(_ result: ScenarioResult) -> ScenarioResult {
        func strip(_ record: StepRecord) -> StepRecord {
            var record = record
            record.durationMilliseconds = 0
            record.children = record.children.map(strip)
            return record
        }
        var result = result
        result.durationMilliseconds = 0
        result.steps = result.steps.map(strip)
        return result
    }

    @Test("a scenario over its time limit is interrupted at the step that was running")
    func timeLimit() async throws {
        let scenario = try Self.scenario(
            """
            name: slow
            timeout: 2s
            steps:
              - launch
              - issuer: {fault: http-delay, delay_ms: 30000, path: /oauth/token}
              - signIn
            """)
        let outcome = await ScenarioRunner.run(scenario, seed: 1)
        #expect(outcome.result.status == .interrupted)
        #expect(outcome.result.failure?.step == "signIn")
        #expect(outcome.result.failure?.message.contains("time limit") == true)
    }

    @Test("a suite runs jobs in parallel, keeps the given order, and stop() interrupts it")
    func suite() async throws {
        let scenarios = try (0..<4).map { try Self.scenario(Self.signInAndRefresh, file: "s\($0).yaml") }
        var options = ScenarioSuite.Options()
        options.jobs = 2
        let finished = Mutex(0)
        let results = await ScenarioSuite(options: options).run(scenarios) { _ in
            finished.withLock { $0 += 1 }
        }
        #expect(results.map(\.file) == ["s0.yaml", "s1.yaml", "s2.yaml", "s3.yaml"])
        #expect(results.allSatisfy { $0.status == .passed })
        #expect(finished.withLock { $0 } == 4)

        let slow = try (0..<3).map {
            try Self.scenario(
                """
                name: slow \($0)
                steps:
                  - launch
                  - issuer: {fault: http-delay, delay_ms: 3000, path: /oauth/token}
                  - signIn
                """, file: "slow\($0).yaml")
        }
        options.jobs = 1
        let suite = ScenarioSuite(options: options)
        let startedFiles = Mutex<[String]>([])
        let began = ChangeSignal()
        let run = Task {
            await suite.run(
                slow,
                started: { scenario in
                    startedFiles.withLock { $0.append(scenario.location.file) }
                    began.notify()
                }
            ) { _ in }
        }
        // Stopped once the first has started (it then waits 3 s on the token endpoint): a
        // scenario not started when stop() comes is skipped, not interrupted.
        try await began.wait(for: "the first slow scenario to start") {
            !startedFiles.withLock { $0 }.isEmpty
        }
        suite.stop()
        run.cancel()
        let interrupted = await run.value
        #expect(interrupted[0].status == .interrupted)
        #expect(interrupted[1...].allSatisfy { $0.status == .skipped })
        #expect(startedFiles.withLock { $0 } == ["slow0.yaml"])
    }

    @Test("seeds derive from the run seed and the scenario, not from scheduling")
    func seeds() throws {
        let a = try Self.scenario("name: a\nsteps: [launch]", file: "a.yaml")
        let b = try Self.scenario("name: b\nsteps: [launch]", file: "b.yaml")
        #expect(ScenarioSuite.seed(for: a, runSeed: 1) == ScenarioSuite.seed(for: a, runSeed: 1))
        #expect(ScenarioSuite.seed(for: a, runSeed: 1) != ScenarioSuite.seed(for: b, runSeed: 1))
        #expect(ScenarioSuite.seed(for: a, runSeed: 1) != ScenarioSuite.seed(for: a, runSeed: 2))
        let fixed = try Self.scenario("name: f\nseed: 9\nsteps: [launch]")
        #expect(ScenarioSuite.seed(for: fixed, runSeed: 1) == 9)
    }

    /// Without `--seed`, a scenario against the embedded issuer is still reproducible (its seed
    /// derives from 0), and one against a real issuer gets fresh randomness: no seed at all.
    @Test("without a run seed: derived for the embedded issuer, fresh for a real one")
    func freshAgainstRealIssuers() throws {
        let embedded = try Self.scenario("name: e\nsteps: [launch]")
        #expect(
            ScenarioSuite.seed(for: embedded, runSeed: nil) == ScenarioSuite.seed(for: embedded, runSeed: 0))
        let real = try Self.scenario("name: r\nissuer: https://issuer.example\nsteps: [launch]")
        #expect(ScenarioSuite.seed(for: real, runSeed: nil) == nil)
        #expect(ScenarioSuite.seed(for: real, runSeed: 3) != nil)
        let pinned = try Self.scenario("name: p\nseed: 4\nissuer: https://issuer.example\nsteps: [launch]")
        #expect(ScenarioSuite.seed(for: pinned, runSeed: nil) == 4)
    }

    @Test("launch's configure outcome, outcome lists, headers and token type are checkable")
    func moreChecks() async throws {
        let outcome = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: checks
                apps: [{id: com.example.app, dpop: true}]
                steps:
                  - issuer: {fault: rp-discovery-issuer-not-matching-config}
                  - launch
                  - expect: {error: discovery_failed}
                  - signIn: {error: [discovery_failed, none]}
                  - signIn: {error: [none]}
                  - expect:
                      token_type: dpop
                      requests: [{path: /oauth/token, headers: {DPoP: present, Authorization: absent}, at_least: 1}]
                """), seed: 5)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        #expect(outcome.result.steps[1].note?.contains("discovery_failed") == true)
        let wrongHeader = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: bearer has no DPoP header
                steps:
                  - launch
                  - signIn
                  - expect: {requests: [{path: /oauth/token, headers: {DPoP: present}}]}
                """), seed: 5)
        #expect(wrongHeader.result.status == .failed)
        #expect(wrongHeader.result.failure?.expected == "at least 1")
    }
}

/// `wait` orders the branches of a race; a branch's failure is reported even when another
/// branch holds the block open until the time limit.
@Suite struct ScenarioWaitTests {
    @Test("a kill while the sheet is up: the call reports transport, nothing is stored")
    func killDuringSheet() async throws {
        let outcome = await ScenarioRunner.run(
            try ScenarioRunnerTests.scenario(
                """
                name: kill during the sheet
                steps:
                  - launch
                  - parallel:
                      - signIn: {abandon: login, error: transport}
                      - - wait: {sheet: presented}
                        - terminate
                  - expect: {app_phase: notRunning, keychain: 0}
                """), seed: 2)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        #expect(outcome.result.steps[1].children.map(\.step) == ["signIn", "sequence"])
        #expect(outcome.result.steps[1].children[1].children.map(\.step) == ["wait", "terminate"])
    }

    @Test("a wait that never holds fails after its bound, naming the condition")
    func waitBound() async throws {
        let outcome = await ScenarioRunner.run(
            try ScenarioRunnerTests.scenario(
                "name: w\nsteps:\n  - launch\n  - wait: {requests: {path: /never, count: 1}}\n"), seed: 2)
        #expect(outcome.result.status == .failed)
        #expect(outcome.result.failure?.message.contains("1 request(s) to /never") == true)
    }

    @Test("a failed branch is the reported failure even when another branch hangs")
    func branchFailure() async throws {
        let outcome = await ScenarioRunner.run(
            try ScenarioRunnerTests.scenario(
                """
                name: branch fails
                timeout: 6s
                steps:
                  - launch
                  - parallel:
                      - signIn: {abandon: login}
                      - - wait: {sheet: presented}
                        - expect: {session: present}
                """), seed: 2)
        #expect(outcome.result.status == .failed)
        #expect(outcome.result.failure?.step == "expect")
        #expect(outcome.result.failure?.message.contains("time limit") == true)
    }
}
