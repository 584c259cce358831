import HTTPCore
import Recordings
import Scenario
import Testing

/// Replaying a capture: matching that ignores volatile parameters and order, recorded order for
/// identical requests, the three modes, and the facts the divergence report is made of.
@Suite struct ReplayTransportTests {
    static let token = "https://issuer.example/oauth/token"

    static func exchange(
        _ method: String, _ url: String, body: String = "", status: Int? = 200, answer: String = ""
    )
        -> RecordedExchange
    {
        RecordedExchange(
            source: "capture", startedAtMilliseconds: 0, method: method, url: url,
            requestBody: Array(body.utf8),
            status: status, responseBody: Array(answer.utf8))
    }

    static func post(_ body: String) -> HTTPRequest {
        HTTPRequest.form(url: token, parameters: (try? FormURLEncoding.decode(body)) ?? [:])
    }

    static let capture = [
        exchange("GET", "https://issuer.example/.well-known/openid-configuration", answer: "discovery"),
        exchange(
            "POST", token, body: "grant_type=authorization_code&code=c1&code_verifier=v1&client_id=app",
            answer: "first tokens"),
        exchange(
            "POST", token, body: "grant_type=refresh_token&refresh_token=r1&client_id=app",
            answer: "refresh 1"),
        exchange(
            "POST", token, body: "grant_type=refresh_token&refresh_token=r1&client_id=app", status: 400,
            answer: "replay"),
    ]

    @Test("matches on form parameters in any order, volatile values left out")
    func matching() async throws {
        let replay = ReplayTransport(exchanges: Self.capture)
        // Another code and verifier, parameters in another order: still the code exchange.
        let exchange = try await replay.send(
            Self.post("client_id=app&code_verifier=other&code=other&grant_type=authorization_code"))
        #expect(exchange.bodyText == "first tokens")
        // Identical refreshes are served in recorded order: the second gets the recorded 400.
        let first = try await replay.send(
            Self.post("grant_type=refresh_token&client_id=app&refresh_token=r1"))
        let second = try await replay.send(
            Self.post("refresh_token=r1&grant_type=refresh_token&client_id=app"))
        #expect(first.bodyText == "refresh 1")
        #expect(second.status == 400 && second.bodyText == "replay")
        #expect(replay.served.map(\.entry) == [1, 2, 3])
        #expect(replay.unused == [0])
        #expect(replay.reordered.isEmpty)
    }

    @Test("strict: an unmatched request fails and is reported; a refresh token's value matters")
    func strict() async {
        let replay = ReplayTransport(exchanges: Self.capture)
        do {
            _ = try await replay.send(Self.post("grant_type=refresh_token&refresh_token=r2&client_id=app"))
            Issue.record("an unrecorded refresh token was served")
        } catch {
            #expect(error.code == .connectionFailed)
        }
        #expect(replay.served.first?.entry == nil)
        #expect(replay.served.first?.note == "not in the capture")
    }

    @Test("new-episodes: unmatched requests go to the fallback")
    func newEpisodes() async throws {
        let fallback = ClosureTransport { _ throws(HTTPError) in HTTPResponse.text("live", status: 200) }
        let replay = ReplayTransport(exchanges: Self.capture, mode: .newEpisodes, fallback: fallback)
        let live = try await replay.send(HTTPRequest(url: "https://issuer.example/userinfo"))
        #expect(live.bodyText == "live")
        #expect(replay.served.first?.note == "not in the capture: sent to the issuer")
    }

    @Test("sequential: served in recorded order, a different path is reported")
    func sequential() async throws {
        let replay = ReplayTransport(exchanges: Self.capture, mode: .sequential)
        let first = try await replay.send(
            HTTPRequest(url: "https://issuer.example/.well-known/openid-configuration"))
        #expect(first.bodyText == "discovery")
        let second = try await replay.send(HTTPRequest(url: "https://issuer.example/userinfo"))
        #expect(second.bodyText == "first tokens")
        #expect(replay.served[1].note == "recorded POST https://issuer.example/oauth/token")
    }

    @Test("a recorded request without a response replays as a lost connection")
    func lostResponse() async {
        let replay = ReplayTransport(exchanges: [
            Self.exchange("GET", "https://issuer.example/userinfo", status: nil)
        ])
        do {
            _ = try await replay.send(HTTPRequest(url: "https://issuer.example/userinfo"))
            Issue.record("a response was invented")
        } catch {
            #expect(error.code == .connectionLost)
        }
    }

    @Test("entries served out of recorded order are reported")
    func reordering() async throws {
        let replay = ReplayTransport(exchanges: Self.capture)
        _ = try await replay.send(Self.post("grant_type=refresh_token&refresh_token=r1&client_id=app"))
        _ = try await replay.send(HTTPRequest(url: "https://issuer.example/.well-known/openid-configuration"))
        #expect(replay.reordered == [0])
    }

    /// A race's identical requests are served in the order the issuer must have handled them
    /// (the accepted one first), however the capture lists them; identical requests that did
    /// not overlap keep their recorded order.
    @Test("a race is served accepted answer first; a later retry keeps its place")
    func processingOrder() async throws {
        func refresh(at start: Int64, lasting time: Double, status: Int, answer: String) -> RecordedExchange {
            var exchange = Self.exchange(
                "POST", Self.token, body: "grant_type=refresh_token&refresh_token=r1&client_id=app",
                status: status, answer: answer)
            exchange.startedAtMilliseconds = start
            exchange.timeMilliseconds = time
            return exchange
        }
        // Listed as the requests left: the refused one (held at the issuer) first.
        let race = [
            refresh(at: 1000, lasting: 300, status: 400, answer: "replay"),
            refresh(at: 1001, lasting: 2, status: 200, answer: "winner"),
        ]
        let transport = ReplayTransport(exchanges: race)
        let request = Self.post("grant_type=refresh_token&refresh_token=r1&client_id=app")
        #expect(try await transport.send(request).bodyText == "winner")
        #expect(try await transport.send(request).bodyText == "replay")
        #expect(transport.reordered.isEmpty, "served in the order the issuer handled them")

        // A failure, then a retry a minute later that worked: recorded order.
        let retry = [
            refresh(at: 1000, lasting: 30, status: 503, answer: "unavailable"),
            refresh(at: 61000, lasting: 2, status: 200, answer: "worked"),
        ]
        let later = ReplayTransport(exchanges: retry)
        #expect(try await later.send(request).bodyText == "unavailable")
        #expect(try await later.send(request).bodyText == "worked")
    }
}
