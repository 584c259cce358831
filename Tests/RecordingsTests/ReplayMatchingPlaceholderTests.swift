import HTTPCore
import Recordings
import Scenario
import Testing

/// Replaying a redacted capture: a recorded credential the app supplies itself (password,
/// client secret) that is a placeholder matches whatever the app sends, as Betamax's
/// placeholders do; a real recorded value still has to be sent again; a refresh token's
/// placeholder is the app's token and is compared exactly.
@Suite struct ReplayMatchingPlaceholderTests {
    static let token = "https://issuer.example/oauth/token"

    static func exchange(_ body: String, answer: String, url: String = token) -> RecordedExchange {
        RecordedExchange(
            source: "capture", startedAtMilliseconds: 0, method: "POST", url: url,
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array(body.utf8), status: 200, responseBody: Array(answer.utf8))
    }

    static func post(_ body: String, url: String = token) -> HTTPRequest {
        HTTPRequest.form(url: url, parameters: (try? FormURLEncoding.decode(body)) ?? [:])
    }

    /// The capture of a confidential client using a password grant, written with passwords and
    /// client secrets hidden: the replayed app sends its own values, which match.
    @Test("a placeholder for a password or client secret matches any value the app sends")
    func placeholdersMatchAnyValue() async throws {
        let replay = ReplayTransport(exchanges: [
            Self.exchange(
                "grant_type=password&username=alice&password=<REDACTED:password:1>"
                    + "&client_id=app&client_secret=<REDACTED:client_secret:1>",
                answer: "tokens"),
            Self.exchange(
                "grant_type=refresh_token&refresh_token=rt-1&client_id=app&client_secret=<REDACTED:client_secret:1>",
                answer: "refreshed", url: Self.token + "?audience=api"),
        ])
        let signIn = try await replay.send(
            Self.post(
                "client_secret=s3cr3t&grant_type=password&password=alice-password&client_id=app&username=alice"
            ))
        #expect(signIn.bodyText == "tokens")
        let refresh = try await replay.send(
            Self.post(
                "grant_type=refresh_token&refresh_token=rt-1&client_id=app&client_secret=another",
                url: Self.token + "?audience=api"))
        #expect(refresh.bodyText == "refreshed")
        #expect(replay.served.map(\.entry) == [0, 1])
    }

    /// Presence still counts, and everything else must match: a request without the
    /// credential, or with another user name, is not the recorded one.
    @Test("a placeholder does not make the credential optional or other parameters loose")
    func presenceStillCounts() async {
        let recorded = [
            Self.exchange(
                "grant_type=password&username=alice&password=<REDACTED:password:1>", answer: "tokens")
        ]
        for body in ["grant_type=password&username=alice", "grant_type=password&username=bob&password=x"] {
            let replay = ReplayTransport(exchanges: recorded)
            await #expect(throws: HTTPError.self) { try await replay.send(Self.post(body)) }
            #expect(replay.served.first?.entry == nil)
        }
    }

    /// Without redaction the recorded password is what the app has to send.
    @Test("a real recorded credential must be sent again")
    func realValuesMatchExactly() async throws {
        let replay = ReplayTransport(exchanges: [
            Self.exchange("grant_type=password&username=alice&password=alice-password", answer: "tokens")
        ])
        await #expect(throws: HTTPError.self) {
            try await replay.send(Self.post("grant_type=password&username=alice&password=wrong"))
        }
        let right = try await replay.send(
            Self.post("grant_type=password&username=alice&password=alice-password"))
        #expect(right.bodyText == "tokens")
    }

    /// Two attempts with different (hidden) passwords are served in recorded order: the
    /// placeholders cannot tell them apart, the order can.
    @Test("attempts with different hidden passwords are served in recorded order")
    func recordedOrder() async throws {
        let replay = ReplayTransport(exchanges: [
            Self.exchange(
                "grant_type=password&username=alice&password=<REDACTED:password:1>", answer: "denied"),
            Self.exchange(
                "grant_type=password&username=alice&password=<REDACTED:password:2>", answer: "tokens"),
        ])
        let first = try await replay.send(Self.post("grant_type=password&username=alice&password=typo"))
        let second = try await replay.send(Self.post("grant_type=password&username=alice&password=right"))
        #expect([first.bodyText, second.bodyText] == ["denied", "tokens"])
    }

    /// The app was handed `<REDACTED:refresh_token:1>` as its token: presenting it matches the
    /// requests that presented the first token, never those of the second.
    @Test("refresh token placeholders are the app's tokens and compared exactly")
    func refreshTokenPlaceholders() async throws {
        let replay = ReplayTransport(exchanges: [
            Self.exchange(
                "grant_type=refresh_token&refresh_token=<REDACTED:refresh_token:2>", answer: "second"),
            Self.exchange(
                "grant_type=refresh_token&refresh_token=<REDACTED:refresh_token:1>", answer: "first"),
        ])
        let response = try await replay.send(
            Self.post("grant_type=refresh_token&refresh_token=%3CREDACTED%3Arefresh_token%3A1%3E"))
        #expect(response.bodyText == "first")
        await #expect(throws: HTTPError.self) {
            try await replay.send(Self.post("grant_type=refresh_token&refresh_token=rt-live"))
        }
    }

    /// Keys that match are equal and hash alike, whichever side holds the placeholder.
    @Test("keys with a placeholder equal keys with any value and hash alike")
    func keys() {
        let matching = ReplayMatching()
        let recorded = matching.key(
            method: "POST", url: Self.token, body: Array("a=1&client_secret=<REDACTED:client_secret:3>".utf8))
        let sent = matching.key(method: "post", url: Self.token, body: Array("client_secret=xyz&a=1".utf8))
        let other = matching.key(method: "POST", url: Self.token, body: Array("client_secret=xyz&a=2".utf8))
        #expect(recorded == sent)
        #expect(sent == recorded)
        #expect(recorded.hashValue == sent.hashValue)
        #expect(recorded != other)
        #expect(
            sent != matching.key(method: "POST", url: Self.token, body: Array("client_secret=abc&a=1".utf8)))
    }
}
