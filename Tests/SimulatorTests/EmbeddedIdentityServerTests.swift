import Clocks
import HTTPClient
import HTTPCore
import Simulator
import Testing

@Suite struct EmbeddedIdentityServerTests {
    /// The issuer and the hosted Apple answer on one loopback port; discovery names the issuer.
    @Test func issuerAndAppleShareOneListener() async throws {
        let server = try await EmbeddedIdentityServer.start(clock: ManualWallClock(now: 1_800_000_000))
        let transport = CurlTransport(cookieJar: nil)
        let discovery = try await transport.send(
            HTTPRequest(url: server.issuerURL + "/.well-known/openid-configuration"))
        let keys = try await transport.send(HTTPRequest(url: server.appleURL + "/auth/keys"))
        await server.shutdown()
        #expect(discovery.status == 200)
        #expect(try discovery.jsonBody()["issuer"]?.stringValue == server.issuerURL)
        #expect(keys.status == 200)
        #expect(server.appleURL == server.issuerURL + "/apple")
    }
}
