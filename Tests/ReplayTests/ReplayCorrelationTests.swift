import Testing

@testable import Replay

/// The recorded app's random values and re-signed ID tokens put to the replayed app's, and back.
@Suite struct ReplayCorrelationTests {
    static let recordedState = "recorded-state-0123"
    static let replayedState = "replayed/state+4567"
    static let recordedToken = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJyZWNvcmRlZCJ9.c2lnMQ"
    static let replayedToken = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJyZXBsYXllZCJ9.c2lnMg"

    func correlation() -> ReplayCorrelation {
        var correlation = ReplayCorrelation()
        correlation.learn(recorded: Self.recordedState, replayed: Self.replayedState)
        correlation.learnToken(recorded: Self.recordedToken, replayed: Self.replayedToken)
        return correlation
    }

    @Test("values are replaced raw and percent-encoded, every time they occur")
    func values() {
        let correlation = correlation()
        let location = "com.example.app:/cb?code=abc&state=\(Self.recordedState)"
        #expect(
            correlation.toReplayed(location) == "com.example.app:/cb?code=abc&state=\(Self.replayedState)")
        let next =
            "/login?next=%2Fauthorize%3Fstate%3Dreplayed%2Fstate%2B4567%26x%3D1 and replayed/state+4567"
        #expect(
            correlation.toRecorded(next)
                == "/login?next=%2Fauthorize%3Fstate%3D\(Self.recordedState)%26x%3D1 and \(Self.recordedState)"
        )
        #expect(correlation.toReplayed("no values here") == "no values here")
    }

    @Test("tokens are replaced only whole, wherever they stand")
    func tokens() {
        let correlation = correlation()
        let hint = "/logout?id_token_hint=\(Self.replayedToken)&state=x"
        #expect(correlation.toRecorded(hint) == "/logout?id_token_hint=\(Self.recordedToken)&state=x")
        #expect(correlation.toRecorded(Self.replayedToken) == Self.recordedToken)
        #expect(correlation.recorded(Self.replayedToken) == Self.recordedToken)
        #expect(correlation.replayed(Self.recordedToken) == Self.replayedToken)
        // A token inside a longer run of token characters is another value.
        let longer = Self.replayedToken + "x"
        #expect(correlation.toRecorded(longer) == longer)
    }

    @Test("short values are never substituted inside text, and the first pairing stays")
    func shortAndFirst() {
        var correlation = ReplayCorrelation()
        correlation.learn(recorded: "abc", replayed: "xyz")
        #expect(correlation.toReplayed("abcdef") == "abcdef")
        #expect(correlation.replayed("abc") == "xyz")
        correlation.learn(recorded: "abc", replayed: "other")
        #expect(correlation.replayed("abc") == "xyz")
    }
}
