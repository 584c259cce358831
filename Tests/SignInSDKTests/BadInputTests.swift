import HTTPCore
import JSON
import SignInSDK
import Testing

/// Issuers that answer the wrong thing: a clear error naming the step, nothing half-written.
@Suite struct BadInputTests {
    /// A transport that serves the fake issuer but lets a test replace one path's answer.
    static func harness(replacing path: String, with response: HTTPResponse) -> SDKHarness {
        let issuer = FakeIssuer()
        let transport = ClosureTransport { request throws(HTTPError) in
            if request.path == path { return response }
            return try await issuer.respond(request)
        }
        return SDKHarness(issuer: issuer, transport: transport)
    }

    /// HTML where the discovery document was expected.
    @Test func htmlDiscovery() async {
        let harness = Self.harness(
            replacing: "/.well-known/openid-configuration",
            with: .html("<html><body>Sign in to Wi-Fi</body></html>"))
        let error = await capture { try await harness.client.configure(options: harness.options) }
        #expect(error?.code == .discoveryFailed)
        #expect(error?.message.contains("not JSON") == true)
    }

    /// Discovery without a token endpoint.
    @Test func incompleteDiscovery() async {
        let harness = Self.harness(
            replacing: "/.well-known/openid-configuration",
            with: .json(["issuer": "https://issuer.test/", "authorization_endpoint": "https://issuer.test/a"])
        )
        let error = await capture { try await harness.client.configure(options: harness.options) }
        #expect(error?.code == .discoveryFailed)
        #expect(error?.message.contains("token_endpoint") == true)
    }

    /// A truncated token response: an error, and nothing stored.
    @Test func truncatedTokenResponse() async throws {
        let harness = Self.harness(
            replacing: "/token",
            with: HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array(#"{"access_token":"ab"#.utf8)))
        try await harness.client.configure(options: harness.options)
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .invalidTokenResponse)
        #expect(harness.storage.keys.isEmpty)
    }

    /// A token response without `id_token` on the code exchange.
    @Test func tokenResponseWithoutIDToken() async throws {
        let harness = Self.harness(
            replacing: "/token", with: .json(["access_token": "a", "token_type": "Bearer", "expires_in": 60]))
        try await harness.client.configure(options: harness.options)
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .invalidTokenResponse)
        #expect(harness.storage.keys.isEmpty)
    }

    /// A JWKS that is not a key set: the ID token cannot be verified, nothing stored.
    @Test func brokenJWKS() async throws {
        let harness = Self.harness(replacing: "/jwks", with: .json(["keys": "none"]))
        try await harness.client.configure(options: harness.options)
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .discoveryFailed)
        #expect(harness.storage.keys.isEmpty)
    }

    /// A callback that is not a URL.
    @Test func callbackThatIsNotAURL() async throws {
        let harness = try await SDKHarness().configured()
        let error = await capture { try await harness.client.handleRedirect(url: "not a url at all") }
        #expect(error?.code == .invalidCallback)
    }

    /// A callback repeating `state` is refused (RFC 6749 §3.1).
    @Test func callbackRepeatingState() async throws {
        let harness = try await SDKHarness().configured()
        let error = await capture {
            try await harness.client.handleRedirect(
                url: "com.example.app://auth/callback?code=a&state=b&state=c")
        }
        #expect(error?.code == .invalidCallback)
    }
}
