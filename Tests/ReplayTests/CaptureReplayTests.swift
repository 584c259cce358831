import HTTPClient
import HTTPCore
import JSON
import Recordings
import Scenario
import ScenarioReports
import ScenarioRunner
import SignInSDK
import TestSupport
import Testing

@testable import Replay

/// Captures for the replay tests: the files `Captures/make.sh` wrote, and captures recorded
/// live from a scenario.
enum ReplayCaptures {
    static func load(_ name: String) throws -> HARCapture {
        try HARImporter.load(path: TestCaptures.path("\(name).har"))
    }

    /// A scenario run against the embedded issuer, written as `run --har-dir` writes it (steps
    /// as pages) and read back.
    static func recorded(
        _ yaml: String, seed: UInt64 = 5, redaction: Redaction = .default,
        browsers: BrowserSelection = .init()
    ) async throws
        -> HARCapture
    {
        let scenario = try ScenarioLoader.parse(Array(yaml.utf8), file: "live.yaml")
        let outcome = await ScenarioRunner.run(scenario, seed: seed, browsers: browsers)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        let bytes = HARWriter.render(
            outcome.exchanges, recording: outcome.recording, creator: "signinsim", version: "test",
            redaction: redaction)
        return try HARImporter.parse(bytes, file: "live.har")
    }

    static func options(profile: String? = nil, mode: ReplayMode = .strict, infers: Bool = false)
        -> CaptureReplay.Options
    {
        var options = CaptureReplay.Options()
        options.profile = profile
        options.mode = mode
        options.infersStory = infers
        return options
    }
}

/// Replaying from launch: the recorded story (a signinsim run's steps, or what another tool's
/// traffic shows) played against the recorded answers.
@Suite struct CaptureReplayTests {
    @Test(
        "signinsim's own captures replay from launch as recorded",
        arguments: ["session", "race", "tampered-state", "wrong-password"])
    func ownCaptures(name: String) async throws {
        let report = try await CaptureReplay.run(try ReplayCaptures.load(name))
        #expect(report.matches, "\(report.text)")
        #expect(report.story == "recorded steps")
        #expect(report.text.hasSuffix("the app behaves as recorded\n"))
    }

    /// Field bug 1: the recorded naive app raced two refreshes and was signed out. The default
    /// SDK (single flight) makes one refresh, stays signed in, and the report says so.
    @Test("the race replays with its recorded naive profile; the default SDK diverges")
    func race() async throws {
        let capture = try ReplayCaptures.load("race")
        let naive = try await CaptureReplay.run(capture)
        #expect(naive.profile == "naive")
        let race = try #require(naive.steps.first { $0.name == "parallel" })
        #expect(race.replayed.map(ReplayReport.sortedCalls) == ["ok", "session_expired"])
        #expect(naive.signedInAtEndRecorded == false && naive.signedInAtEndReplayed == false)

        let correct = try await CaptureReplay.run(
            capture, options: ReplayCaptures.options(profile: "default"))
        #expect(!correct.matches)
        let notMade = correct.lines.filter { $0.divergence == "the replayed app did not make this request" }
        #expect(notMade.map(\.path) == ["/oauth/token"], "\(correct.text)")
        #expect(correct.signedInAtEndReplayed == true)
        #expect(correct.text.contains("signed in at the end: recorded no, replayed yes — DIFFERS"))
    }

    /// Another tool's capture has no steps: they are read from the traffic, and the replay
    /// still plays the whole story (the web sign-in included) as recorded.
    @Test("a capture without recorded steps is read from its traffic and replays as recorded")
    func foreign() async throws {
        let report = try await CaptureReplay.run(try ReplayCaptures.load("foreign"))
        #expect(report.story == "read from the traffic")
        #expect(report.matches, "\(report.text)")
        #expect(
            report.steps.map(\.name)
                == [
                    "launch", "signIn", "advance", "getAccessToken", "userInfo", "advance", "getAccessToken",
                    "signOut",
                ])
        #expect(
            report.lines.map(\.sender) == [
                "app", "browser", "browser", "browser", "app", "app", "app", "app", "app", "app",
            ])
        #expect(report.lines[2].role == "login" && report.lines[3].role == "consent")
    }

    /// A field capture often starts with the app long signed in: its first call needing a
    /// session is a refresh. The replayed app starts from a session restored with the refresh
    /// token that refresh presents, and then behaves as recorded.
    @Test("a capture that begins signed in replays from a restored session")
    func beginsSignedIn() async throws {
        var capture = try ReplayCaptures.load("session")
        let firstRefresh = try #require(
            capture.exchanges.firstIndex {
                String(decoding: $0.requestBody, as: UTF8.self).contains("grant_type=refresh_token")
            })
        capture.exchanges = Array(capture.exchanges[firstRefresh...])
        let report = try await CaptureReplay.run(capture, options: ReplayCaptures.options(infers: true))
        #expect(report.matches, "\(report.text)")
        #expect(report.text.contains("the capture begins with the app signed in"), "\(report.text)")
        let refresh = try #require(report.steps.first { $0.name == "getAccessToken" })
        #expect(refresh.replayed == "ok")

    }

    /// The device asking Apple for the credential state is the app's `getCredentialState`, not
    /// part of a Sign in with Apple, when the story is read from the traffic.
    @Test("a credential-state question read from the traffic is the app's getCredentialState")
    func credentialStateInferred() async throws {
        let capture = try await ReplayCaptures.recorded(
            """
            name: check
            device:
              apple_account: {email: kim@example.com, given_name: Kim}
            steps:
              - launch
              - signInWithApple
              - getCredentialState: {state: authorized}
            """)
        let report = try await CaptureReplay.run(capture, options: ReplayCaptures.options(infers: true))
        #expect(report.story == "read from the traffic")
        #expect(
            report.steps.map(\.name) == ["launch", "signInWithApple", "getCredentialState"], "\(report.text)")
        #expect(report.matches, "\(report.text)")
    }

    @Test("a tampered state is refused by the replayed app as it was by the recorded one")
    func tamperedState() async throws {
        let report = try await CaptureReplay.run(try ReplayCaptures.load("tampered-state"))
        #expect(report.matches, "\(report.text)")
        let signIn = try #require(report.steps.first { $0.name == "signIn" })
        #expect(signIn.recorded == "state_mismatch" && signIn.replayed == "state_mismatch")
        #expect(
            report.text.contains("its state is not the one the authorization request sent"), "\(report.text)")
        #expect(!report.lines.contains { $0.path == "/oauth/token" })
    }

    @Test("a login form shown again is named in the report, and the replayed person types again")
    func wrongPassword() async throws {
        let report = try await CaptureReplay.run(try ReplayCaptures.load("wrong-password"))
        #expect(report.matches, "\(report.text)")
        let rejected = try #require(report.lines.first { $0.recorded.contains("with a login form (note:") })
        #expect(rejected.method == "POST" && rejected.role == "login")
        #expect(rejected.recorded.contains("Wrong email or password."))
    }

    /// The damaged capture: a swapped access token (its ID token's at_hash no longer fits), a
    /// flipped signature, an entry in an unknown encoding, two days' gap after which the
    /// recorded ID token had expired.
    @Test("the token audit and the replayed SDK catch what was damaged")
    func damaged() async throws {
        let report = try await CaptureReplay.run(try ReplayCaptures.load("damaged"))
        #expect(!report.matches)
        let signIn = try #require(report.steps.first { $0.name == "signIn" })
        #expect(signIn.replayed == SignInError.Code.tokenHashMismatch.rawValue, "\(report.text)")
        let findings = report.tokens.map(\.finding)
        #expect(findings.contains("does not verify: at_hash does not match the access token beside it"))
        #expect(findings.contains { $0.contains("signature does not verify") })
        #expect(findings.contains { $0.contains("expired") })
        #expect(report.skipped.first?.contains("unknown encoding") == true)
    }

    @Test("a capture with no OAuth traffic is refused with the reason")
    func noOAuth() async {
        let page = RecordedExchange(
            source: .unknown, startedAtMilliseconds: 0, method: "GET", url: "https://example.com/",
            status: 200)
        do {
            _ = try await CaptureReplay.run(HARCapture(exchanges: [page]))
            Issue.record("a capture without OAuth replayed")
        } catch {
            #expect(error.description.contains("holds no OAuth or OpenID Connect traffic"))
        }
    }

    /// Sequential mode gives entries in order whatever the request carries: a request that
    /// presents another refresh token than the recording's is flagged, never its own order.
    @Test("sequential mode flags a different refresh token and nothing about order")
    func sequential() async throws {
        var capture = try ReplayCaptures.load("session")
        let refresh = try #require(
            capture.exchanges.lastIndex {
                String(decoding: $0.requestBody, as: UTF8.self).contains("grant_type=refresh_token")
            })
        let body = String(decoding: capture.exchanges[refresh].requestBody, as: UTF8.self)
        var form = try FormURLEncoding.decode(body)
        form["refresh_token"] = "a-token-nobody-was-given"
        capture.exchanges[refresh].requestBody = FormURLEncoding.encodedBytes(form)

        let sequential = try await CaptureReplay.run(
            capture, options: ReplayCaptures.options(mode: .sequential))
        let flagged = sequential.lines.filter { $0.divergence != nil }
        #expect(flagged.count == 1, "\(sequential.text)")
        #expect(flagged.first?.divergence?.contains("refresh_token") == true)
        #expect(!sequential.text.contains("out of recorded order"))

        let strict = try await CaptureReplay.run(capture)
        #expect(strict.extras.contains { $0.path == "/oauth/token" && $0.divergence }, "\(strict.text)")
    }
}

/// `new-episodes`: what the capture lacks goes to the endpoint of the same role at an issuer.
@Suite struct NewEpisodesTests {
    /// The session capture as an issuer with django-oauth-toolkit's paths would record it.
    static func renamedCapture() throws -> HARCapture {
        var capture = try ReplayCaptures.load("session")
        for index in capture.exchanges.indices {
            let renames = [
                ("/oauth/token", "/o/token/"), ("/userinfo", "/o/userinfo/"), ("/authorize", "/o/authorize/"),
            ]
            for (from, to) in renames {
                capture.exchanges[index].url = capture.exchanges[index].url.replacingOccurrences(
                    of: from, with: to)
                let text = String(decoding: capture.exchanges[index].responseBody, as: UTF8.self)
                if text.contains("\"token_endpoint\"") {
                    capture.exchanges[index].responseBody = Array(
                        text.replacingOccurrences(of: from, with: to).utf8)
                }
            }
        }
        return capture
    }

    @Test("roles come from the capture's discovery whatever the paths")
    func rolesByDiscovery() throws {
        let analysis = CaptureAnalysis(try Self.renamedCapture())
        let tokenRoles = analysis.entries.enumerated().filter {
            analysis.capture.exchanges[$0.offset].url.hasSuffix("/o/token/")
        }.map(\.element.role)
        #expect(Set(tokenRoles) == [.token])
        #expect(analysis.endpoints[.token]?.hasSuffix("/o/token/") == true)
    }

    /// The last refresh removed from the capture (its recorded steps still make it):
    /// new-episodes sends it to the embedded issuer's token endpoint (`/oauth/token`, not the
    /// recorded `/o/token/`), which answers.
    @Test("a request the capture lacks goes to the target's endpoint of the same role")
    func mapsByRole() async throws {
        var capture = try Self.renamedCapture()
        let last = try #require(capture.exchanges.lastIndex { $0.url.hasSuffix("/o/token/") })
        capture.exchanges.remove(at: last)
        capture.entryNumbers.remove(at: last)
        let report = try await CaptureReplay.run(capture, options: ReplayCaptures.options(mode: .newEpisodes))
        let episode = try #require(report.extras.first { $0.outcome.hasPrefix("sent to") }, "\(report.text)")
        #expect(episode.path == "/o/token/")
        #expect(episode.outcome.contains("/oauth/token, which answered"), "\(episode.outcome)")
    }

    @Test("a new-episodes issuer that is not an http(s) URL is refused before the replay")
    func badTarget() async throws {
        var options = ReplayCaptures.options(mode: .newEpisodes)
        options.newEpisodes = .issuer("not a url")
        do {
            _ = try await CaptureReplay.run(try ReplayCaptures.load("session"), options: options)
            Issue.record("replayed with a relative fallback")
        } catch let error as CaptureReplay.Failure {
            #expect(error.description.contains("not an http(s) URL"))
        }
    }
}

/// A confidential client's capture replays with its secret sent as the capture shows it.
@Suite struct ConfidentialClientReplayTests {
    static let yaml = """
        name: a confidential client
        issuer:
          tenant:
            clients:
              - client_id: com.example.confidential
                client_secret: s3cret-of-the-app
                redirect_uris: ["com.example.confidential://cb"]
          client_id: com.example.confidential
          client_secret: s3cret-of-the-app
          redirect_uri: com.example.confidential://cb
        steps:
          - launch
          - signIn
          - advance: 1h
          - renewSession
        """

    @Test("Basic credentials, and the secret moved into the body, replay as recorded")
    func secretAsRecorded() async throws {
        let basic = try await ReplayCaptures.recorded(Self.yaml)
        #expect(basic.exchanges.contains { $0.requestHeaders.contains { $0.name == "Authorization" } })
        let replayedBasic = try await CaptureReplay.run(basic)
        #expect(replayedBasic.matches, "\(replayedBasic.text)")

        // The same exchanges as a client_secret_post client sends them, read from the traffic:
        // no header, the secret in each token request's form.
        var post = HARCapture(exchanges: basic.exchanges)
        for index in post.exchanges.indices where post.exchanges[index].url.hasSuffix("/oauth/token") {
            post.exchanges[index].requestHeaders.removeAll { $0.name == "Authorization" }
            post.exchanges[index].requestBody += Array("&client_secret=s3cret-of-the-app".utf8)
        }
        let replayedPost = try await CaptureReplay.run(post)
        #expect(replayedPost.matches, "\(replayedPost.text)")
    }
}
