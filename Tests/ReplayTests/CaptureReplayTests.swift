import HTTPClient
import Recordings
import Scenario
import ScenarioRunner
import SignInSDK
import TestSupport
import Testing

@testable import Replay

/// Replaying a capture of field bug 1 (a refresh race that signed the user out): the naive
/// SDK reproduces it request for request, the default SDK diverges and stays signed in.
@Suite struct CaptureReplayTests {
    /// A capture made the way support would get one from the field: the naive app racing two
    /// refreshes against the embedded issuer, every exchange recorded (`Captures/race.yaml`,
    /// made by `Captures/make.sh`). A file rather than a fresh run: which of two raced requests
    /// is recorded first, and so served first, is up to the scheduler on the day.
    static func raceCapture() throws -> HARCapture {
        try HARImporter.load(path: TestCaptures.path("race.har"))
    }

    @Test("the naive SDK reproduces the recorded race; the default one diverges and stays signed in")
    func raceReplay() async throws {
        let capture = try Self.raceCapture()
        let naive = try await CaptureReplay.run(
            capture, options: .init(profile: BehaviorProfile(refreshStrategy: .naive)))
        #expect(naive.matches, "\(naive.text)")
        #expect(naive.actions.map(\.what) == ["refresh + refresh"])
        #expect(naive.actions.first?.outcomes.contains("session_expired") == true)
        #expect(naive.tokens.allSatisfy { $0.contains("verifies") }, "\(naive.tokens)")

        let correct = try await CaptureReplay.run(capture)
        #expect(!correct.matches)
        #expect(correct.notMadeByApp.count == 1, "\(correct.text)")
        #expect(correct.actions.first?.outcomes == ["ok", "ok"])
        #expect(correct.signedInAtEnd)
        #expect(correct.text.contains("the app diverges from the recording"))
    }

    @Test("a capture without discovery or without a session cannot be replayed")
    func unusable() async {
        do {
            _ = try await CaptureReplay.run(HARCapture(exchanges: []))
            Issue.record("an empty capture replayed")
        } catch {
            #expect(error.description.contains("no answered discovery request"))
        }
    }
}

/// `import-har`: the race capture becomes a scenario that reproduces the revoked family with
/// the naive SDK and fails with the default one, which does not race.
@Suite struct ScenarioDerivationTests {
    @Test func raceCaptureBecomesAScenario() async throws {
        let capture = try CaptureReplayTests.raceCapture()
        let naiveYAML = try ScenarioDerivation.yaml(from: capture, name: "repro", profile: "naive")
        #expect(naiveYAML.contains("  - parallel:"))
        // The race is built, not left to timing: the first refresh is held at the issuer.
        #expect(naiveYAML.contains("  - issuer: {fault: http-delay, path: /oauth/token, count: 1"))
        #expect(naiveYAML.contains("issuer_refresh_tokens: revoked"))
        #expect(naiveYAML.contains("  - advance: 3600s"))
        let naive = try ScenarioLoader.parse(Array(naiveYAML.utf8), file: "repro.yaml")
        let reproduced = await ScenarioRunner.run(naive, seed: 3)
        #expect(
            reproduced.result.status == .passed,
            "\(naiveYAML)\(String(describing: reproduced.result.failure))")

        let correctYAML = try ScenarioDerivation.yaml(from: capture, name: "repro", profile: "default")
        let correct = try ScenarioLoader.parse(Array(correctYAML.utf8), file: "repro.yaml")
        let outcome = await ScenarioRunner.run(correct, seed: 3)
        #expect(outcome.result.status == .failed)
        #expect(outcome.result.failure?.expected == "all revoked")
    }
}

/// `new-episodes`: what the capture lacks goes to an issuer (the embedded one by default),
/// where `strict` refuses it.
@Suite struct NewEpisodesTests {
    /// The race capture without the key set, as a capture begun after the app had cached
    /// the keys would be: the replayed app, restored without them, must fetch them.
    static func captureWithoutKeys() async throws -> HARCapture {
        var capture = try CaptureReplayTests.raceCapture()
        capture.exchanges.removeAll { $0.url.hasSuffix("/.well-known/jwks.json") }
        return capture
    }

    @Test("strict refuses the key set the capture lacks; new-episodes fetches it from the embedded issuer")
    func fallback() async throws {
        let capture = try await Self.captureWithoutKeys()
        let naive = BehaviorProfile(refreshStrategy: .naive)

        let strict = try await CaptureReplay.run(capture, options: .init(profile: naive, mode: .strict))
        #expect(!strict.matches)
        #expect(strict.notInCapture.first?.hasSuffix("/.well-known/jwks.json") == true, "\(strict.text)")
        #expect(strict.tokens == ["no key set in the capture: ID tokens not checked"])

        let episodes = try await CaptureReplay.run(
            capture, options: .init(profile: naive, mode: .newEpisodes))
        #expect(!episodes.matches)
        let fetched = try #require(episodes.notInCapture.first, "\(episodes.text)")
        #expect(fetched.hasPrefix("GET \(episodes.issuer)/.well-known/jwks.json"))
        #expect(fetched.hasSuffix("(not in the capture: sent to the issuer)"))
        // The embedded issuer signs with its own keys: the recorded ID token names a key it
        // does not have, so the refresh that got one is refused after one re-fetch.
        #expect(episodes.notInCapture.count == 2, "\(episodes.text)")
        #expect(episodes.actions.first?.outcomes.contains("id_token_invalid") == true, "\(episodes.text)")
        #expect(strict.actions.first?.outcomes.contains("id_token_invalid") == false, "\(strict.text)")
    }

    @Test("a fallback URL that is not absolute is refused before the replay")
    func badTarget() async throws {
        let capture = try CaptureReplayTests.raceCapture()
        do {
            _ = try await CaptureReplay.run(
                capture, options: .init(mode: .newEpisodes, newEpisodes: .issuer("not a url")))
            Issue.record("replayed with a relative fallback")
        } catch {
            #expect(error.description.contains("not an absolute URL"))
        }
    }

    @Test("requests to the recorded issuer go to the target's origin, path and query kept")
    func rewriting() throws {
        let transport = try #require(
            OriginRewritingTransport(
                recordedIssuer: "https://tenant.example.com/", target: "http://127.0.0.1:8080",
                inner: CurlTransport(cookieJar: nil)))
        #expect(
            transport.rewritten("https://tenant.example.com/oauth/token?x=1#f")
                == "http://127.0.0.1:8080/oauth/token?x=1#f")
        #expect(transport.rewritten("https://TENANT.example.com") == "http://127.0.0.1:8080")
        #expect(transport.rewritten("https://cdn.example.com/keys") == "https://cdn.example.com/keys")
        #expect(
            transport.rewritten("https://tenant.example.com:8443/x") == "https://tenant.example.com:8443/x")
    }
}

/// A confidential client's capture replays with its secret sent as the capture shows it.
@Suite struct ConfidentialClientReplayTests {
    /// A confidential client signing in and refreshing; the SDK sends the secret with HTTP Basic.
    static func capture() async throws -> HARCapture {
        let scenario = try ScenarioLoader.parse(
            Array(
                """
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
                """.utf8), file: "confidential.yaml")
        let outcome = await ScenarioRunner.run(scenario, seed: 5)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        return HARCapture(exchanges: outcome.exchanges)
    }

    @Test("Basic credentials, and the secret moved into the body, replay as recorded")
    func secretAsRecorded() async throws {
        let basic = try await Self.capture()
        #expect(basic.exchanges.contains { $0.requestHeaders.contains { $0.name == "Authorization" } })
        let replayedBasic = try await CaptureReplay.run(basic)
        #expect(replayedBasic.matches, "\(replayedBasic.text)")

        // The same exchanges as a client_secret_post client sends them: no header, the secret
        // in each token request's form.
        var post = basic
        for index in post.exchanges.indices where post.exchanges[index].url.hasSuffix("/oauth/token") {
            post.exchanges[index].requestHeaders.removeAll { $0.name == "Authorization" }
            post.exchanges[index].requestBody += Array("&client_secret=s3cret-of-the-app".utf8)
        }
        let replayedPost = try await CaptureReplay.run(post)
        #expect(replayedPost.matches, "\(replayedPost.text)")
        #expect(replayedPost.actions.first?.outcomes == ["ok"])
    }
}
