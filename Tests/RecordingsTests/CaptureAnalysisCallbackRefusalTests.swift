import Recordings
import Testing

/// Why an app never redeemed a callback's code, read from the traffic (RFC 6749 §10.12).
@Suite struct CaptureAnalysisCallbackRefusalTests {
    /// A sign-in whose authorization request sent `state=S` and whose callback carries
    /// `callbackQuery`, with a code exchange of `C1` when `exchanged`.
    static func capture(callbackQuery: String, exchanged: Bool = false) throws -> HARCapture {
        let token = """
            ,{"startedDateTime": "2026-12-05T10:00:03.000Z",
             "request": {"method": "POST", "url": "https://idp.example/oauth2/v1/token",
               "headers": [{"name": "content-type", "value": "application/x-www-form-urlencoded"}],
               "postData": {"mimeType": "application/x-www-form-urlencoded",
                 "text": "grant_type=authorization_code&code=C1&code_verifier=V&client_id=app&redirect_uri=com.ex%3A%2Fcb"}},
             "response": {"status": 200, "content": {"mimeType": "application/json",
               "text": "{\\"access_token\\": \\"A1\\", \\"token_type\\": \\"Bearer\\"}"}}}
            """
        let text = """
            {"log": {"entries": [
              {"startedDateTime": "2026-12-05T10:00:01.000Z",
               "request": {"method": "GET",
                 "url": "https://idp.example/oauth2/v1/authorize?response_type=code&client_id=app&redirect_uri=com.ex%3A%2Fcb&state=S&nonce=N&code_challenge=CH&code_challenge_method=S256&scope=openid",
                 "headers": [{"name": "accept", "value": "text/html"}]},
               "response": {"status": 302, "headers": [{"name": "location", "value": "com.ex:/cb?\(callbackQuery)"}],
                 "content": {"text": ""}}}\(exchanged ? token : "")
            ]}}
            """
        return try HARImporter.parse(Array(text.utf8), file: "refusal.har")
    }

    static func refusal(callbackQuery: String, exchanged: Bool = false) throws
        -> CaptureAnalysis.CallbackRefusal?
    {
        let analysis = CaptureAnalysis(try capture(callbackQuery: callbackQuery, exchanged: exchanged))
        let flow = try #require(analysis.signIns.first)
        return analysis.callbackRefusal(flow)
    }

    @Test("a code never exchanged whose state is the request's: the cause is not in the traffic")
    func matchingStateNeverExchanged() throws {
        #expect(try Self.refusal(callbackQuery: "code=C1&state=S") == .causeNotShown)
        #expect(
            try Self.refusal(callbackQuery: "code=C1&state=S&iss=https%3A%2F%2Fidp.example") == .causeNotShown
        )
    }

    @Test("a code never exchanged whose state is not the request's: the state check refused it")
    func alteredStateNeverExchanged() throws {
        #expect(try Self.refusal(callbackQuery: "code=C1&state=T") == .stateNotSent)
    }

    @Test("a redeemed code, an error, no state or another issuer's iss: no refusal to explain")
    func nothingToExplain() throws {
        #expect(try Self.refusal(callbackQuery: "code=C1&state=S", exchanged: true) == nil)
        #expect(try Self.refusal(callbackQuery: "error=access_denied&state=S") == nil)
        #expect(try Self.refusal(callbackQuery: "code=C1") == nil)
        #expect(try Self.refusal(callbackQuery: "code=C1&state=S&iss=https%3A%2F%2Fother.example") == nil)
    }
}
