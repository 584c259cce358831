import JSON
import Scenario
import ScenarioReports
import Testing

@Suite("HAR redaction")
struct RedactionTests {
    private func render(
        _ exchanges: [RecordedExchange] = Fixtures.exchanges, _ redaction: Redaction = .default
    )
        -> String
    {
        String(
            decoding: HARWriter.render(exchanges, creator: "t", version: "0", redaction: redaction),
            as: UTF8.self)
    }

    /// By default the password, the client secret, Basic credentials and the private key never
    /// reach the output, and placeholders show where they were.
    @Test("hides secrets by default")
    func hidesSecrets() {
        let text = render()
        for secret in [
            Fixtures.password, Fixtures.clientSecret, Fixtures.basicCredentials, Fixtures.privateKeyD,
        ] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(text.contains("password=<REDACTED:password:1>&action=default"))
        #expect(text.contains(#""value": "<REDACTED:password:1>""#))
        #expect(text.contains("Basic <REDACTED:basic-credentials:1>"))
        #expect(text.contains("<REDACTED:client_secret:1>"))
        #expect(text.contains(#"\"d\":\"<REDACTED:d:1>\""#))
    }

    /// Without redaction the capture holds every secret: the tests above would see a leak.
    @Test("keeps everything when disabled")
    func disabled() {
        let text = render(Fixtures.exchanges, .disabled)
        for secret in [
            Fixtures.password, Fixtures.clientSecret, Fixtures.basicCredentials, Fixtures.privateKeyD,
        ] {
            #expect(text.contains(secret))
        }
        #expect(!text.contains("REDACTED"))
    }

    /// Refresh tokens and code verifiers are kept by default and hidden when asked, in form
    /// bodies and token responses alike.
    @Test("refresh tokens and code verifiers on request")
    func optionalSecrets() {
        let byDefault = render()
        #expect(byDefault.contains(Fixtures.refreshToken))
        #expect(byDefault.contains(Fixtures.codeVerifier))
        let strict = render(Fixtures.exchanges, Redaction(codeVerifiers: true, refreshTokens: true))
        #expect(!strict.contains(Fixtures.refreshToken))
        #expect(!strict.contains(Fixtures.codeVerifier))
        #expect(strict.contains("refresh_token=<REDACTED:refresh_token:1>"))
        #expect(strict.contains(#"\"refresh_token\":\"<REDACTED:refresh_token:1>\""#))
        #expect(strict.contains("<REDACTED:code_verifier:1>"))
        #expect(Redaction.everything.refreshTokens && Redaction.everything.codeVerifiers)
    }

    /// A JWK keeps its public members; a `d` outside a JWK is not a key and stays.
    @Test("private JWK members only")
    func privateKeyMembers() throws {
        let document = try JSONValue.parse(HARWriter.render(Fixtures.exchanges, creator: "t", version: "0"))
        let text = try #require(
            document["log"]?["entries"]?.arrayValue?[3]["request"]?["postData"]?["text"]?.stringValue)
        let body = try JSONValue.parse(text)
        #expect(body["key"]?["d"] == "<REDACTED:d:1>")
        #expect(body["key"]?["x"] == "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU")
        #expect(body["d"] == "not a key")
        #expect(body["client_secret"] == "<REDACTED:client_secret:1>")
        let rsa: JSONValue = [
            "kty": "RSA", "n": "modulus", "e": "AQAB", "d": "1", "p": "2", "q": "3", "dp": "4", "dq": "5",
            "qi": "6",
        ]
        let exchange = RecordedExchange(
            source: .device, startedAtMilliseconds: 0, method: "POST", url: "http://a/",
            requestBody: rsa.serialized())
        let redacted = try JSONValue.parse(
            try #require(
                try JSONValue.parse(HARWriter.render([exchange], creator: "t", version: "0"))["log"]?[
                    "entries"]?
                    .arrayValue?.first?["request"]?["postData"]?["text"]?.stringValue))
        for member in ["d", "p", "q", "dp", "dq", "qi"] {
            #expect(redacted[member] == .string("<REDACTED:\(member):1>"))
        }
        #expect(redacted["n"] == "modulus")
    }

    /// Secrets in a query are hidden in the URL (percent-encoded, so it stays a valid URL), in
    /// `queryString`, and in a `Location` that carries them.
    @Test("query strings and locations")
    func queries() throws {
        let exchange = RecordedExchange(
            source: .device, startedAtMilliseconds: 0, method: "GET",
            url:
                "https://legacy.example/login?user=alice&password=\(Fixtures.password)#password=\(Fixtures.password)",
            status: 302,
            responseHeaders: [
                HeaderField("Location", "https://legacy.example/next?client_secret=\(Fixtures.clientSecret)")
            ])
        let text = render([exchange])
        #expect(!text.contains(Fixtures.password))
        #expect(!text.contains(Fixtures.clientSecret))
        let entry = try #require(try JSONValue.parse(Array(text.utf8))["log"]?["entries"]?.arrayValue?.first)
        #expect(
            entry["request"]?["url"]
                == "https://legacy.example/login?user=alice&password=%3CREDACTED%3Apassword%3A1%3E#password=%3CREDACTED%3Apassword%3A1%3E"
        )
        #expect(
            entry["request"]?["queryString"] == [
                ["name": "user", "value": "alice"], ["name": "password", "value": "<REDACTED:password:1>"],
            ])
        #expect(
            entry["response"]?["redirectURL"]
                == "https://legacy.example/next?client_secret=%3CREDACTED%3Aclient_secret%3A1%3E")
        #expect(
            entry["response"]?["headers"]?.arrayValue?.first?["value"] == entry["response"]?["redirectURL"])
    }

    /// Parameter names that end in `password` count; other names do not.
    @Test("which parameters are hidden")
    func parameterNames() {
        let redaction = Redaction.default
        #expect(redaction.hidesParameter(named: "password"))
        #expect(redaction.hidesParameter(named: "new_password"))
        #expect(redaction.hidesParameter(named: "Password"))
        #expect(redaction.hidesParameter(named: "client_assertion"))
        #expect(!redaction.hidesParameter(named: "username"))
        #expect(!redaction.hidesParameter(named: "code"))
        #expect(!redaction.hidesParameter(named: "refresh_token"))
        #expect(!Redaction(passwords: false).hidesParameter(named: "password"))
        #expect(Redaction.placeholder(for: "password", number: 1) == "<REDACTED:password:1>")
    }

    /// Bodies with nothing to hide are written exactly as they were sent, not re-serialised.
    @Test("untouched bodies stay verbatim")
    func untouchedBodies() throws {
        let body = "{ \"b\": 1,\n  \"a\": [true] }"
        let exchange = RecordedExchange(
            source: .device, startedAtMilliseconds: 0, method: "POST", url: "http://a/",
            requestHeaders: [HeaderField("Content-Type", "application/json")], requestBody: Array(body.utf8))
        let document = try JSONValue.parse(HARWriter.render([exchange], creator: "t", version: "0"))
        #expect(
            document["log"]?["entries"]?.arrayValue?.first?["request"]?["postData"]?["text"] == .string(body))
    }

    /// A redacted body's sizes are those of the text shown, so they do not give away how long
    /// the hidden secret was.
    @Test("sizes follow the redacted text")
    func sizes() throws {
        // A password longer than its placeholder, so that the two sizes differ.
        var login = Fixtures.exchanges[1]
        login.requestBody = Array(
            "username=alice&password=\(Fixtures.password)-and-then-some&action=default".utf8)
        let document = try JSONValue.parse(HARWriter.render([login], creator: "t", version: "0"))
        let request = try #require(document["log"]?["entries"]?.arrayValue?[0]["request"])
        let text = try #require(request["postData"]?["text"]?.stringValue)
        #expect(request["bodySize"] == .int(Int64(text.utf8.count)))
        #expect(request["bodySize"] != .int(Int64(login.requestBody.count)))
    }
}
