import Recordings
import Testing

/// Reading a capture's sign-in story without a discovery document, from entries out of order.
@Suite struct CaptureAnalysisTests {
    /// An ID token whose payload names `https://idp.example` as issuer and `N` as nonce
    /// (the signature is not checked here).
    static let idToken =
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIiwic3ViIjoidTEiLCJhdWQiOiJhcHAi"
        + "LCJub25jZSI6Ik4iLCJpYXQiOjE4MDAwMDAwMDAsImV4cCI6MTgwMDAwMzYwMH0.c2ln"

    /// The token request comes first in the file though it was sent second; HTTP/2 pseudo-headers
    /// are in the header lists, as Chrome and mitmproxy write them; the paths are Okta-like, not
    /// the embedded issuer's.
    static let capture = """
        {"log": {"entries": [
          {"startedDateTime": "2026-12-05T10:00:03.000Z",
           "request": {"method": "POST", "url": "https://idp.example/oauth2/v1/token",
             "headers": [{"name": ":authority", "value": "idp.example"}, {"name": ":method", "value": "POST"},
                         {"name": "content-type", "value": "application/x-www-form-urlencoded"}],
             "postData": {"mimeType": "application/x-www-form-urlencoded",
               "text": "grant_type=authorization_code&code=C1&code_verifier=V&client_id=app&redirect_uri=com.ex%3A%2Fcb"}},
           "response": {"status": 200, "headers": [{"name": ":status", "value": "200"},
                         {"name": "content-type", "value": "application/json"}],
             "content": {"mimeType": "application/json",
               "text": "{\\"access_token\\": \\"A1\\", \\"token_type\\": \\"Bearer\\", \\"id_token\\": \\"\(idToken)\\", \\"refresh_token\\": \\"R1\\"}"}}},
          {"startedDateTime": "2026-12-05T10:00:01.000Z",
           "request": {"method": "GET",
             "url": "https://idp.example/oauth2/v1/authorize?response_type=code&client_id=app&redirect_uri=com.ex%3A%2Fcb&state=S&nonce=N&code_challenge=CH&code_challenge_method=S256&scope=openid%20offline_access",
             "headers": [{"name": ":authority", "value": "idp.example"}, {"name": "accept", "value": "text/html"}]},
           "response": {"status": 302, "headers": [{"name": "location", "value": "com.ex:/cb?code=C1&state=S"}],
             "content": {"text": ""}}},
          {"startedDateTime": "2026-12-05T10:00:03.500Z",
           "request": {"method": "GET", "url": "https://idp.example/oauth2/v1/keys"},
           "response": {"status": 200, "content": {"mimeType": "application/json", "text": "{\\"keys\\": []}"}}}
        ]}}
        """

    @Test("roles, order, endpoints and the sign-in flow come from the traffic alone")
    func inferredWithoutDiscovery() throws {
        let capture = try HARImporter.parse(Array(Self.capture.utf8), file: "okta.har")
        let analysis = CaptureAnalysis(capture)
        #expect(analysis.timeline == [1, 0, 2])
        #expect(analysis.discovery == nil)
        #expect(analysis.entries.map(\.role) == [.token, .authorization, .jwks])
        #expect(analysis.entries[0].grant == "authorization_code")
        #expect(analysis.entries[0].sender == .app)
        #expect(analysis.entries[1].sender == .browser)
        #expect(analysis.issuer == "https://idp.example")
        #expect(analysis.endpoints[.token] == "https://idp.example/oauth2/v1/token")
        #expect(analysis.endpoints[.authorization] == "https://idp.example/oauth2/v1/authorize")
        #expect(analysis.clientIDs == ["app"])
        #expect(analysis.redirectURIs == ["com.ex:/cb"])

        let flow = try #require(analysis.signIns.first)
        #expect(analysis.signIns.count == 1)
        #expect(flow.state == "S")
        #expect(flow.nonce == "N")
        #expect(flow.codeChallenge == "CH")
        #expect(flow.scopes == ["openid", "offline_access"])
        #expect(flow.callback?.code == "C1")
        #expect(flow.codeExchange == 0)

        for exchange in capture.exchanges {
            #expect(!exchange.requestHeaders.contains { $0.name.hasPrefix(":") })
        }
    }
}
