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
    /// Field bug 1 recorded live, every exchange with its real secrets: the naive app racing
    /// two refreshes against the embedded issuer.
    static func raceCapture() async throws -> HARCapture {
        let scenario = try ScenarioLoader.parse(Array(try TestCaptures.raceScenario.utf8), file: "field.yaml")
        let outcome = await ScenarioRunner.run(scenario, seed: 21)
        #expect(outcome.result.status == .passed, "\(String(describing: outcome.result.failure))")
        return HARCapture(exchanges: outcome.exchanges)
    }

    /// The race capture as `signinsim run --har-dir --har-redact refresh-tokens` writes it
    /// (passwords and client secrets hidden too, as by default), read back.
    static func recordedRedacted() async throws -> (raw: HARCapture, redacted: HARCapture, har: String) {
        let raw = try await Self.raceCapture()
        let bytes = HARWriter.render(
            raw.exchanges, creator: "signinsim", version: "test", redaction: Redaction(refreshTokens: true))
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

    @Test("the redacted capture replays as recorded with the naive SDK, and the race still reproduces")
    func replaysRedacted() async throws {
        let (raw, redacted, _) = try await Self.recordedRedacted()
        let naiveProfile = BehaviorProfile(refreshStrategy: .naive)
        let original = try await CaptureReplay.run(raw, options: .init(profile: naiveProfile))
        let naive = try await CaptureReplay.run(redacted, options: .init(profile: naiveProfile))
        #expect(naive.matches, "\(naive.text)")
        #expect(naive.text.contains("the app behaves as recorded"))
        #expect(naive.actions.map(\.what) == ["refresh + refresh"])
        #expect(naive.actions.first?.outcomes.sorted() == ["ok", "session_expired"], "\(naive.text)")
        #expect(!naive.signedInAtEnd)
        #expect(naive.actions.map(\.outcomes) == original.actions.map(\.outcomes))
        #expect(naive.tokens == original.tokens)

        let correct = try await CaptureReplay.run(redacted)
        #expect(!correct.matches)
        #expect(correct.notMadeByApp.count == 1, "\(correct.text)")
        #expect(correct.actions.first?.outcomes == ["ok", "ok"])
        #expect(correct.signedInAtEnd)
    }

    @Test("redacted on import, the capture replays, derives the same scenario and keeps no secret")
    func redactedOnImport() async throws {
        let raw = try await Self.raceCapture()
        let redacted = raw.redacted(.everything)
        let tokens = Self.refreshTokens(raw)
        for exchange in redacted.exchanges {
            let text =
                String(decoding: exchange.requestBody + exchange.responseBody, as: UTF8.self) + exchange.url
            for secret in tokens.union(["alice-password"]) {
                #expect(!text.contains(secret), "\(secret) leaked")
            }
        }
        let naive = try await CaptureReplay.run(
            redacted, options: .init(profile: BehaviorProfile(refreshStrategy: .naive)))
        #expect(naive.matches, "\(naive.text)")
        for secret in tokens { #expect(!naive.text.contains(secret)) }

        let derived = try ScenarioDerivation.yaml(from: redacted, name: "repro", profile: "naive")
        #expect(derived == (try ScenarioDerivation.yaml(from: raw, name: "repro", profile: "naive")))
        #expect(derived.contains("  - parallel:"))
    }

    /// The checked-in race capture was written with the unnumbered placeholders of older
    /// captures (`<REDACTED:password>`): they stay as they are, and its refresh tokens, hidden
    /// on import, are numbered around them.
    @Test("an older capture with unnumbered placeholders, redacted on import, still replays")
    func olderCapture() async throws {
        let capture = try CaptureReplayTests.raceCapture()
        let redacted = capture.redacted(.everything)
        #expect(Self.refreshTokens(redacted) == ["<REDACTED:refresh_token:1>", "<REDACTED:refresh_token:2>"])
        let report = try await CaptureReplay.run(
            redacted, options: .init(profile: BehaviorProfile(refreshStrategy: .naive)))
        #expect(report.matches, "\(report.text)")
        #expect(report.actions.first?.outcomes == ["ok", "session_expired"], "\(report.text)")
    }
}
