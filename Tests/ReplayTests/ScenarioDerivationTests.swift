import JOSE
import JSON
import Recordings
import Scenario
import SignInSDK
import Testing

@testable import Replay

/// Deriving a scenario from a capture: what the embedded issuer already does is not canned.
@Suite struct ScenarioDerivationTests {
    /// In a race the issuer refuses whichever request it handles second, and the derived
    /// scenario holds the first request at the issuer so that the two overlap: the refusal then
    /// falls on the other request than in the capture. The derived run's answers are compared
    /// with the recorded ones as a whole, so this is not mistaken for an error to can (which
    /// would answer the refusal first and leave the app signed in, unlike the capture).
    @Test("a race whose loser was sent second is reproduced without canned answers")
    func raceLoserSentSecond() async throws {
        var capture = try ReplayCaptures.load("race")
        // Read as another tool's capture: the story from the traffic.
        capture.run = nil
        capture.pages = []
        let refreshes = capture.exchanges.indices.filter {
            String(decoding: capture.exchanges[$0].requestBody, as: UTF8.self).contains(
                "grant_type=refresh_token")
        }
        try #require(refreshes.count == 2)
        let (first, second) = (refreshes[0], refreshes[1])
        #expect(capture.exchanges[first].status == 400, "the recorded loser comes first in race.har")
        // The same race, with the loser sent a moment after the winner.
        var loser = capture.exchanges[first]
        var winner = capture.exchanges[second]
        (loser.startedAtMilliseconds, winner.startedAtMilliseconds) =
            (winner.startedAtMilliseconds, loser.startedAtMilliseconds)
        (loser.wallClockOffsetMilliseconds, winner.wallClockOffsetMilliseconds) =
            (winner.wallClockOffsetMilliseconds, loser.wallClockOffsetMilliseconds)
        if loser.sendingMoment <= winner.sendingMoment {
            loser.wallClockOffsetMilliseconds = (winner.wallClockOffsetMilliseconds ?? 0) + 2
        }
        capture.exchanges[first] = loser
        capture.exchanges[second] = winner
        #expect(capture.exchanges[first].sendingMoment > capture.exchanges[second].sendingMoment)

        var options = ScenarioDerivation.Options()
        options.file = "race.har"
        let derived = try await ScenarioDerivation.derive(capture, options: options)
        #expect(derived.passed == true, "\(derived.yaml)\(derived.notExpressed)")
        #expect(!derived.yaml.contains("oauth-error"), "\(derived.yaml)")
    }

    /// An app that refused a callback whose `state` is its sheet's own (it had stored another):
    /// the replay hands it the recorded state, so that the replayed SDK refuses it as well, and
    /// the derived scenario alters the callback's state at the embedded issuer and expects
    /// `state_mismatch`, saying that this cause was assumed.
    @Test("a callback whose code was never exchanged derives an app that refuses it")
    func refusedCallback() async throws {
        let capture = try CorpusTests.load("django-oauth-toolkit/replaced-state")
        var replay = CaptureReplay.Options()
        replay.file = "replaced-state.har"
        let report = try await CaptureReplay.run(capture, options: replay)
        #expect(report.matches, "\(report.text)")
        #expect(report.text.contains("replayed: state_mismatch"), "\(report.text)")

        var options = ScenarioDerivation.Options()
        options.file = "replaced-state.har"
        let derived = try await ScenarioDerivation.derive(capture, options: options)
        #expect(derived.passed == true, "\(derived.yaml)\(derived.notExpressed)")
        #expect(derived.notExpressed.isEmpty, "\(derived.notExpressed)")
        #expect(
            derived.yaml.contains(
                "  - issuer: {fault: callback-state-altered, count: 1}\n"
                    + "  - signIn: {username: alice@example.invalid, error: state_mismatch}\n"),
            "\(derived.yaml)")
        #expect(derived.yaml.contains("- expect: {session: absent}"), "\(derived.yaml)")
        #expect(derived.scenario.description.contains("cause assumed: a state the app did not store"))
    }

    /// An app that refreshed with a stale refresh token, was refused, and retried at once with
    /// the newer one: the derived app has the `stale-refresh-copy` profile, the refusal and
    /// the retry are one `getAccessToken`, and the session survives against an issuer that
    /// refuses a reused token without revoking the family.
    @Test("a stale refresh token retried with the newer one derives the stale-refresh-copy app")
    func staleCopyRetried() async throws {
        var options = ScenarioDerivation.Options()
        options.file = "stale-refresh-copy.har"
        let derived = try await ScenarioDerivation.derive(
            try CorpusTests.load("django-oauth-toolkit/stale-refresh-copy"), options: options)
        #expect(derived.passed == true, "\(derived.yaml)\(derived.notExpressed)")
        #expect(derived.notExpressed.isEmpty, "\(derived.notExpressed)")
        #expect(derived.scenario.apps.map(\.profile) == [BehaviorProfile(faults: [.staleRefreshCopy])])
        let refreshes = derived.scenario.steps.filter { $0.name == "getAccessToken" }
        #expect(refreshes.count == 2)
        #expect(!derived.yaml.contains("error: session_expired"), "\(derived.yaml)")
        #expect(derived.yaml.contains("refresh_rotation: {on_reuse: refuse"), "\(derived.yaml)")
        #expect(derived.yaml.contains("- expect: {session: present}"), "\(derived.yaml)")
    }

    /// A capture's ID token whose `exp` − `iat` does not fit in Int64 (the capture's numbers
    /// are anyone's) is read without trapping; the lifetime is simply not taken from it.
    @Test("an ID token lifetime that overflows is skipped, not a trap")
    func overflowingLifetime() async throws {
        var capture = try ReplayCaptures.load("race")
        let index = try #require(
            capture.exchanges.indices.first { ReplayKeys.idToken(in: capture.exchanges[$0]) != nil })
        var body = try JSONValue.parseObject(capture.exchanges[index].responseBody)
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8))
        let claims = Base64URL.encode(
            Array(
                #"{"iss":"x","sub":"s","aud":"a","iat":-9223372036854775000,"exp":9223372036854775000}"#.utf8)
        )
        body["id_token"] = .string("\(header).\(claims).c2ln")
        capture.exchanges[index].responseBody = JSONValue.object(body).serialized()
        var options = ScenarioDerivation.Options()
        options.file = "race.har"
        let derived = try? await ScenarioDerivation.derive(capture, options: options)
        #expect(derived.map { !$0.yaml.contains("id_token: -") } ?? true)
    }
}
