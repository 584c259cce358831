import JSON
import Scenario
import ScenarioReports
import Testing

/// Numbered placeholders (`<REDACTED:refresh_token:1>`): one per distinct secret of a capture,
/// the same wherever that secret appears, so that a redacted capture keeps which requests
/// presented the same token. Also the `--har-redact` / `--redact` vocabulary.
@Suite("HAR redaction placeholders")
struct RedactionPlaceholderTests {
    static let firstToken = "rt-first-8c1d7e0b2a"
    static let secondToken = "rt-second-5f6a3b9d41"
    static let password = "correct-horse-battery"

    static func tokenResponse(_ refreshToken: String, at time: Int64) -> RecordedExchange {
        RecordedExchange(
            source: .device, startedAtMilliseconds: time, method: "POST",
            url: "https://issuer.example/oauth/token",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("grant_type=authorization_code&code=c&client_id=app".utf8), status: 200,
            responseHeaders: [HeaderField("Content-Type", "application/json")],
            responseBody: Array(#"{"access_token":"at","refresh_token":"\#(refreshToken)"}"#.utf8))
    }

    static func refresh(_ refreshToken: String, at time: Int64, status: Int = 200, issuing: String? = nil)
        -> RecordedExchange
    {
        var exchange = RecordedExchange(
            source: .device, startedAtMilliseconds: time, method: "POST",
            url: "https://issuer.example/oauth/token",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=app".utf8),
            status: status, responseHeaders: [HeaderField("Content-Type", "application/json")],
            responseBody: Array(#"{"error":"invalid_grant"}"#.utf8))
        if let issuing {
            exchange.responseBody = Array(#"{"access_token":"at2","refresh_token":"\#(issuing)"}"#.utf8)
        }
        return exchange
    }

    /// A sign-in, a race of two refreshes presenting the first token (one wins, one is
    /// refused), the token revoked by value, and the second token in a query and a JSON body.
    static let capture: [RecordedExchange] = [
        RecordedExchange(
            source: .device, startedAtMilliseconds: 0, method: "POST", url: "https://issuer.example/u/login",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("username=alice&password=\(password)".utf8), status: 302),
        tokenResponse(firstToken, at: 1),
        refresh(firstToken, at: 2, issuing: secondToken),
        refresh(firstToken, at: 2, status: 400),
        RecordedExchange(
            source: .device, startedAtMilliseconds: 3, method: "POST",
            url: "https://issuer.example/oauth/revoke",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("token=\(firstToken)&token_type_hint=refresh_token".utf8), status: 200),
        RecordedExchange(
            source: .device, startedAtMilliseconds: 4, method: "GET",
            url: "https://legacy.example/session?refresh_token=\(secondToken)&password=\(password)",
            status: 204),
        RecordedExchange(
            source: .device, startedAtMilliseconds: 5, method: "POST", url: "https://legacy.example/api",
            requestHeaders: [HeaderField("Content-Type", "application/json")],
            requestBody: Array(
                #"{"refresh_token":"\#(secondToken)","nested":[{"token":"\#(firstToken)"}]}"#.utf8),
            status: 204),
    ]

    static let redaction = Redaction(refreshTokens: true)

    private func text(_ exchange: RecordedExchange) -> String {
        String(decoding: exchange.requestBody, as: UTF8.self) + " "
            + String(decoding: exchange.responseBody, as: UTF8.self)
    }

    /// Each distinct secret gets the next number for its name, in order of first appearance,
    /// and the same placeholder everywhere: token responses, form bodies, queries, JSON bodies,
    /// and a revocation that carries the token under another name.
    @Test("one placeholder per distinct secret, the same everywhere")
    func numbering() throws {
        let redacted = Self.redaction.apply(to: Self.capture)
        let first = "<REDACTED:refresh_token:1>"
        let second = "<REDACTED:refresh_token:2>"
        #expect(text(redacted[0]) == "username=alice&password=<REDACTED:password:1> ")
        #expect(text(redacted[1]).contains(#""refresh_token":"\#(first)""#))
        // The race: both requests present the same placeholder, as they presented one token.
        #expect(text(redacted[2]).hasPrefix("grant_type=refresh_token&refresh_token=\(first)&client_id=app"))
        #expect(text(redacted[2]).contains(#""refresh_token":"\#(second)""#))
        #expect(redacted[3].requestBody == redacted[2].requestBody)
        #expect(text(redacted[4]).hasPrefix("token=\(first)&token_type_hint=refresh_token"))
        #expect(
            redacted[5].url
                == "https://legacy.example/session?refresh_token=%3CREDACTED%3Arefresh_token%3A2%3E"
                + "&password=%3CREDACTED%3Apassword%3A1%3E")
        let body = try JSONValue.parse(redacted[6].requestBody)
        #expect(body["refresh_token"] == .string(second))
        #expect(body["nested"]?.arrayValue?.first?["token"] == .string(first))
        for exchange in redacted {
            let all = text(exchange) + exchange.url
            for secret in [Self.firstToken, Self.secondToken, Self.password] {
                #expect(!all.contains(secret), "\(secret) leaked")
            }
        }
    }

    /// The same capture always gets the same placeholders, and the HAR shows them in
    /// `queryString` and `params` too.
    @Test("placeholders are stable and shown in every part of the HAR")
    func stable() throws {
        let once = HARWriter.render(Self.capture, creator: "t", version: "0", redaction: Self.redaction)
        let twice = HARWriter.render(Self.capture, creator: "t", version: "0", redaction: Self.redaction)
        #expect(once == twice)
        let entries = try #require(try JSONValue.parse(once)["log"]?["entries"]?.arrayValue)
        #expect(
            entries[5]["request"]?["queryString"] == [
                ["name": "refresh_token", "value": "<REDACTED:refresh_token:2>"],
                ["name": "password", "value": "<REDACTED:password:1>"],
            ])
        #expect(
            entries[3]["request"]?["postData"]?["params"]?.arrayValue?[1]
                == ["name": "refresh_token", "value": "<REDACTED:refresh_token:1>"])
    }

    /// Placeholders already in a capture stay, their numbers are not given to other secrets,
    /// and redacting a redacted capture changes nothing.
    @Test("existing placeholders are kept; redacting twice changes nothing")
    func idempotent() {
        let once = Self.redaction.apply(to: Self.capture)
        #expect(Self.redaction.apply(to: once) == once)
        // Passwords hidden on record, refresh tokens only on import: numbers do not collide.
        let recorded = Redaction.default.apply(to: Self.capture)
        let imported = Redaction.everything.apply(to: recorded)
        #expect(imported == once)
        var mixed = Self.capture
        mixed.insert(Self.refresh("<REDACTED:refresh_token:1>", at: 0), at: 0)
        let renumbered = Self.redaction.apply(to: mixed)
        #expect(text(renumbered[0]).contains("refresh_token=<REDACTED:refresh_token:1>&"))
        #expect(text(renumbered[2]).contains(#""refresh_token":"<REDACTED:refresh_token:2>""#))
    }

    /// A short secret is hidden under its own name only: elsewhere `1234` is too likely to be
    /// an ordinary value.
    @Test("short secrets are not hunted under other names")
    func shortSecrets() {
        let exchange = RecordedExchange(
            source: .device, startedAtMilliseconds: 0, method: "POST", url: "https://a.example/?pin=1234",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("password=1234".utf8))
        let redacted = Redaction.default.apply(to: [exchange])[0]
        #expect(redacted.url == "https://a.example/?pin=1234")
        #expect(redacted.requestBody == Array("password=<REDACTED:password:1>".utf8))
    }

    /// A body without a content type is read as a form when it is not JSON, as replay
    /// matching reads it; Basic credentials are numbered too.
    @Test("forms without a content type and Basic credentials")
    func untypedFormsAndBasic() {
        let exchange = RecordedExchange(
            source: .unknown, startedAtMilliseconds: 0, method: "POST", url: "https://a.example/token",
            requestHeaders: [HeaderField("authorization", "Basic YXBwOnNlY3JldA==")],
            requestBody: Array("grant_type=password&password=\(Self.password)".utf8))
        let redacted = Redaction.default.apply(to: [exchange, exchange])
        #expect(redacted[1].requestBody == Array("grant_type=password&password=<REDACTED:password:1>".utf8))
        #expect(
            redacted[1].requestHeaders == [
                HeaderField("authorization", "Basic <REDACTED:basic-credentials:1>")
            ])
        #expect(Redaction.disabled.apply(to: [exchange]) == [exchange])
    }

    @Test("placeholders are recognised and parsed; credentials the app supplies are named")
    func placeholderFormat() {
        #expect(Redaction.placeholder(for: "refresh_token", number: 2) == "<REDACTED:refresh_token:2>")
        #expect(Redaction.isPlaceholder("<REDACTED:refresh_token:2>"))
        #expect(Redaction.isPlaceholder("<REDACTED:password>"))
        #expect(!Redaction.isPlaceholder("<REDACTED:"))
        #expect(!Redaction.isPlaceholder("REDACTED"))
        #expect(!Redaction.isPlaceholder("rt-1"))
        #expect(Redaction.parsePlaceholder("<REDACTED:refresh_token:12>")! == ("refresh_token", 12))
        #expect(Redaction.parsePlaceholder("<REDACTED:password>")! == ("password", nil))
        #expect(Redaction.parsePlaceholder("secret") == nil)
        for name in ["password", "new_password", "client_secret", "client_assertion"] {
            #expect(Redaction.isAppCredential(lowercasedName: name))
        }
        for name in ["refresh_token", "token", "code", "pass", "username"] {
            #expect(!Redaction.isAppCredential(lowercasedName: name))
        }
    }

    /// `--har-redact` and `--redact` read a list left to right from the default: a kind adds
    /// itself, so naming one never reveals the others; `none` clears, `all` adds everything.
    @Test("the command-line vocabulary")
    func vocabulary() throws {
        #expect(try Redaction(list: ["refresh-tokens"]) == Redaction(refreshTokens: true))
        #expect(try Redaction(list: ["default"]) == .default)
        #expect(try Redaction(list: ["all"]) == .everything)
        #expect(try Redaction(list: ["none"]) == .disabled)
        #expect(
            try Redaction(list: ["none,refresh-tokens"])
                == Redaction(
                    passwords: false, clientSecrets: false, basicCredentials: false, privateKeys: false,
                    refreshTokens: true, cookies: false))
        #expect(
            try Redaction(list: ["code-verifiers", " Refresh-Tokens "])
                == Redaction(codeVerifiers: true, refreshTokens: true))
        do {
            _ = try Redaction(list: ["refresh-tokens,tokens"])
            Issue.record("an unknown kind was accepted")
        } catch {
            #expect(error.name == "tokens")
            #expect(error.description.hasPrefix(#"unknown kind of secret "tokens" (expected passwords, "#))
        }
        #expect(Redaction.listWords.count == Redaction.Kind.allCases.count + 3)
    }
}
