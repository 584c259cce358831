import JSON
import Recordings
import Replay
import Scenario
import ScenarioReports
import ScenarioRunner
import SignInSDK
import TestSupport
import Testing

/// A redacted capture replays exactly like the original: written by `run --har-dir` with
/// refresh tokens hidden, or redacted on import, the race of field bug 1 still reproduces with
/// the naive SDK and still diverges with the default one, and the derived scenario is the same.
@Suite struct RedactedCaptureReplayTests {
    /// The race capture as `signinsim run --har-dir --har-redact refresh-tokens` writes it
    /// (passwords, client secrets and cookies hidden too, as by default), read back, and the
    /// same run written with nothing hidden.
    static func recordedRedacted() async throws -> (raw: HARCapture, redacted: HARCapture, har: String) {
        let yaml = try TestCaptures.raceScenario
        let scenario = try ScenarioLoader.parse(Array(yaml.utf8), file: "field.yaml")
        let outcome = await ScenarioRunner.run(scenario, seed: 21)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        let raw = try HARImporter.parse(
            HARWriter.render(
                outcome.exchanges, recording: outcome.recording, creator: "signinsim", version: "test",
                redaction: .disabled), file: "race.har")
        let bytes = HARWriter.render(
            outcome.exchanges, recording: outcome.recording, creator: "signinsim", version: "test",
            redaction: Redaction(refreshTokens: true))
        return (raw, try HARImporter.parse(bytes, file: "race.har"), String(decoding: bytes, as: UTF8.self))
    }

    /// Every refresh token the capture holds, from token responses and refresh requests.
    static func refreshTokens(_ capture: HARCapture) -> Set<String> {
        var tokens = Set<String>()
        for exchange in capture.exchanges {
            if let token = (try? JSONValue.parseObject(exchange.responseBody))?["refresh_token"]?.stringValue
            {
                tokens.insert(token)
            }
        }
        return tokens
    }

    @Test("a capture written with refresh tokens hidden holds none and numbers them")
    func writtenRedacted() async throws {
        let (raw, redacted, har) = try await Self.recordedRedacted()
        let tokens = Self.refreshTokens(raw)
        #expect(tokens.count == 2, "the code exchange's token and the one the winning refresh rotated to")
        for token in tokens { #expect(!har.contains(token), "a refresh token leaked") }
        #expect(!har.contains("alice-password"))
        #expect(Self.refreshTokens(redacted) == ["<REDACTED:refresh_token:1>", "<REDACTED:refresh_token:2>"])
        // Both requests of the race present the first token's placeholder.
        let presented = redacted.exchanges.compactMap { exchange -> String? in
            let text = String(decoding: exchange.requestBody, as: UTF8.self)
            return text.contains("grant_type=refresh_token") ? text : nil
        }
        #expect(presented.count == 2)
        #expect(
            presented.allSatisfy { $0.contains("refresh_token=<REDACTED:refresh_token:1>") }, "\(presented)")
    }

    @Test("the redacted capture replays as recorded, and the race still reproduces")
    func replaysRedacted() async throws {
        let (raw, redacted, _) = try await Self.recordedRedacted()
        let original = try await CaptureReplay.run(raw)
        let replayed = try await CaptureReplay.run(redacted)
        #expect(replayed.matches, "\(replayed.text)")
        #expect(replayed.steps.map(\.replayed) == original.steps.map(\.replayed))
        #expect(replayed.tokens.map(\.finding) == original.tokens.map(\.finding))
        #expect(replayed.signedInAtEndReplayed == false)

        let correct = try await CaptureReplay.run(
            redacted, options: ReplayCaptures.options(profile: "default"))
        #expect(!correct.matches)
        #expect(correct.signedInAtEndReplayed == true)
    }

    @Test("redacted on import, the capture replays and keeps no secret")
    func redactedOnImport() async throws {
        let (raw, _, _) = try await Self.recordedRedacted()
        let redacted = raw.redacted(.everything)
        let tokens = Self.refreshTokens(raw)
        for exchange in redacted.exchanges {
            let text =
                String(decoding: exchange.requestBody + exchange.responseBody, as: UTF8.self) + exchange.url
            for secret in tokens.union(["alice-password"]) {
                #expect(!text.contains(secret), "\(secret) leaked")
            }
        }
        let replayed = try await CaptureReplay.run(redacted)
        #expect(replayed.matches, "\(replayed.text)")
        for secret in tokens { #expect(!replayed.text.contains(secret)) }
    }
}
