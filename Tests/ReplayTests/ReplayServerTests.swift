import HTTPCore
import OAuthCore
import Recordings
import Scenario
import Testing

@testable import Replay

/// The replay server's security checks on what the replayed app presents: each flags a request
/// that a real issuer would refuse, even though the recorded answer is served.
@Suite struct ReplayServerTests {
    /// A server over the session capture, the recorded authorization request with this app's
    /// own random values, and the recorded code exchange.
    struct Fixture {
        let server: ReplayServer
        let authorization: HTTPRequest
        let codeExchange: RecordedExchange

        init(challenge: String) throws {
            let analysis = CaptureAnalysis(try ReplayCaptures.load("session"))
            let flow = try #require(analysis.signIns.first)
            let exchanges = analysis.capture.exchanges
            var query = try URLParts.queryParameters(of: exchanges[flow.authorization].url)
            query["code_challenge"] = challenge
            query["state"] = "replayed-state-0001"
            query["nonce"] = "replayed-nonce-0001"
            authorization = HTTPRequest(
                url: FormURLEncoding.appendingQuery(
                    query,
                    to: URLParts.stripQueryAndFragment(
                        exchanges[flow.authorization].url)))
            codeExchange = exchanges[try #require(flow.codeExchange)]
            server = ReplayServer(
                analysis: analysis, mode: .strict, matching: ReplayMatching(),
                keys: ReplayKeys(analysis, seed: 1), fallback: nil,
                issuerURL: try #require(analysis.issuer))
        }

        /// The recorded code exchange with `verifier` (or none) as its `code_verifier`.
        func exchangeCode(verifier: String?) async throws -> ReplayServer.Served {
            var form = try FormURLEncoding.decode(String(decoding: codeExchange.requestBody, as: UTF8.self))
            form["code_verifier"] = verifier
            _ = try await server.send(.form(url: codeExchange.url, parameters: form))
            return try #require(server.served.last)
        }
    }

    static let verifier = "replayed-verifier-0123456789-0123456789-abcdefg"

    /// RFC 7636 §4.6: the verifier must answer the challenge the app sent. The recorded answer
    /// is served (the issuer's own check is not replayed) but the request is flagged.
    @Test("a code_verifier that answers none of the app's challenges is flagged")
    func verifierMismatch() async throws {
        let fixture = try Fixture(challenge: PKCE.challenge(for: Self.verifier))
        _ = try await fixture.server.send(fixture.authorization)

        let wrong = try await fixture.exchangeCode(verifier: "another-verifier-0123456789-0123456789-abcdefg")
        #expect(wrong.entry != nil)
        #expect(wrong.differences == ["a code_verifier that answers none of the app's code_challenge values"])
    }

    @Test("the verifier that answers the app's challenge is not flagged")
    func verifierMatch() async throws {
        let fixture = try Fixture(challenge: PKCE.challenge(for: Self.verifier))
        _ = try await fixture.server.send(fixture.authorization)
        let right = try await fixture.exchangeCode(verifier: Self.verifier)
        #expect(right.entry != nil)
        #expect(right.differences.isEmpty, "\(right.differences)")
    }

    /// Presence is part of a request's identity: a code exchange without the verifier the
    /// recording sent gets no recorded answer at all.
    @Test("a code exchange without code_verifier, where the recording sent one, is not answered")
    func verifierMissing() async throws {
        let fixture = try Fixture(challenge: PKCE.challenge(for: Self.verifier))
        _ = try await fixture.server.send(fixture.authorization)
        var form = try FormURLEncoding.decode(
            String(decoding: fixture.codeExchange.requestBody, as: UTF8.self))
        form["code_verifier"] = nil
        await #expect(throws: HTTPError.self) {
            try await fixture.server.send(.form(url: fixture.codeExchange.url, parameters: form))
        }
        let refused = try #require(fixture.server.served.last)
        #expect(refused.entry == nil)
        #expect(refused.disposition == .notInCapture)
    }
}
