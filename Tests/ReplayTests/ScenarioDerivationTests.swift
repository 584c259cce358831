import JOSE
import JSON
import Recordings
import Scenario
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
