import HTTPCore
import Recordings
import Scenario
import ScenarioReports
import Testing

/// Redaction on import (`replay --redact`, `import-har --redact`): a capture from the field is
/// read with its live secrets, and `HARCapture.redacted(_:)` hides them with the same numbered
/// placeholders the HAR writer uses, so that nothing read from it afterwards holds a secret.
@Suite struct CaptureRedactionTests {
    static let password = "alice-password"
    static let clientSecret = "s3cr3t-of-the-client"
    static let basic = "YXBwOnMzY3IzdC1vZi10aGUtY2xpZW50"
    static let refreshTokens = ["rt-0d9c8b7a6f5e", "rt-1a2b3c4d5e6f"]
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let privateD = "PRIVATE-d-of-a-dpop-key-870MB6gfuTJ4"
    static var secrets: [String] { [password, clientSecret, basic, verifier, privateD] + refreshTokens }

    /// What a proxy on the phone would capture: a login, a code exchange with Basic client
    /// authentication, a DPoP key in a JSON body, two refreshes (one rotating the token), a
    /// revocation, and a redirect carrying a secret in its query.
    static let exchanges: [RecordedExchange] = [
        RecordedExchange(
            source: .unknown, startedAtMilliseconds: 1_800_000_000_000, method: "POST",
            url: "https://issuer.example/u/login?state=s",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("username=alice%40example.com&password=\(password)".utf8), status: 302,
            responseHeaders: [HeaderField("Location", "https://app.example/cb?client_secret=\(clientSecret)")]
        ),
        RecordedExchange(
            source: .unknown, startedAtMilliseconds: 1_800_000_001_000, method: "POST",
            url: "https://issuer.example/oauth/token",
            requestHeaders: [
                HeaderField("Content-Type", "application/x-www-form-urlencoded"),
                HeaderField("Authorization", "Basic \(basic)"),
            ],
            requestBody: Array("grant_type=authorization_code&code=c1&code_verifier=\(verifier)".utf8),
            status: 200, responseHeaders: [HeaderField("Content-Type", "application/json")],
            responseBody: Array(#"{"access_token":"at-1","refresh_token":"\#(refreshTokens[0])"}"#.utf8)),
        RecordedExchange(
            source: .unknown, startedAtMilliseconds: 1_800_000_002_000, method: "POST",
            url: "https://issuer.example/keys",
            requestHeaders: [HeaderField("Content-Type", "application/json")],
            requestBody: Array(
                #"{"jwk":{"kty":"EC","crv":"P-256","x":"x","y":"y","d":"\#(privateD)"}}"#.utf8),
            status: 204),
        RecordedExchange(
            source: .unknown, startedAtMilliseconds: 1_800_003_600_000, method: "POST",
            url: "https://issuer.example/oauth/token",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array(
                "grant_type=refresh_token&refresh_token=\(refreshTokens[0])&client_id=app".utf8),
            status: 200, responseHeaders: [HeaderField("Content-Type", "application/json")],
            responseBody: Array(#"{"access_token":"at-2","refresh_token":"\#(refreshTokens[1])"}"#.utf8)),
        RecordedExchange(
            source: .unknown, startedAtMilliseconds: 1_800_003_601_000, method: "POST",
            url: "https://issuer.example/oauth/revoke",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("token=\(refreshTokens[1])&token_type_hint=refresh_token".utf8), status: 200),
    ]

    /// Every byte of a capture a report or scenario could be derived from.
    static func everything(_ capture: HARCapture) -> String {
        capture.exchanges.map { exchange in
            ([exchange.url] + (exchange.requestHeaders + exchange.responseHeaders).map(\.value)
                + [exchange.requestBody, exchange.responseBody].map { String(decoding: $0, as: UTF8.self) })
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A capture as read from a file that was written without redaction.
    static func imported() throws -> HARCapture {
        try HARImporter.parse(
            HARWriter.render(exchanges, creator: "Proxyman", version: "5", redaction: .disabled),
            file: "field.har")
    }

    @Test("redacting an imported capture leaves none of its secrets")
    func noSecretLeft() throws {
        let capture = try Self.imported()
        let before = Self.everything(capture)
        for secret in Self.secrets { #expect(before.contains(secret), "the fixture lacks \(secret)") }
        let redacted = capture.redacted(.everything)
        let after = Self.everything(redacted)
        for secret in Self.secrets { #expect(!after.contains(secret), "\(secret) leaked") }
        #expect(after.contains("refresh_token=<REDACTED:refresh_token:1>&client_id=app"))
        #expect(after.contains("token=<REDACTED:refresh_token:2>&token_type_hint=refresh_token"))
        #expect(redacted.creator == capture.creator)
        #expect(
            redacted.exchanges.map(\.startedAtMilliseconds) == capture.exchanges.map(\.startedAtMilliseconds))
    }

    /// Only the kinds asked for: refresh tokens stay unless named.
    @Test("the default kinds keep refresh tokens and verifiers")
    func defaultKinds() throws {
        var capture = try Self.imported()
        capture.redact(.default)
        let text = Self.everything(capture)
        #expect(text.contains(Self.refreshTokens[0]) && text.contains(Self.verifier))
        for secret in [Self.password, Self.clientSecret, Self.basic, Self.privateD] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
    }

    /// Redacted on import or on record, a capture is the same: the writer and the importer
    /// share the rules and the placeholders.
    @Test("redacting on import equals redacting on record")
    func sameAsOnRecord() throws {
        let redaction = Redaction(codeVerifiers: true, refreshTokens: true)
        let onRecord = try HARImporter.parse(
            HARWriter.render(Self.exchanges, creator: "signinsim", version: "1", redaction: redaction),
            file: "recorded.har")
        let onImport = try Self.imported().redacted(redaction)
        #expect(onImport.exchanges == onRecord.exchanges)
        // Hiding more on import of a capture redacted on record adds placeholders, keeps the rest.
        let recordedDefault = try HARImporter.parse(
            HARWriter.render(Self.exchanges, creator: "signinsim", version: "1"), file: "recorded.har")
        #expect(recordedDefault.redacted(redaction).exchanges == onRecord.exchanges)
    }
}
