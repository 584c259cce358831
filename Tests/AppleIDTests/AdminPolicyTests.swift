import AppleID
import HTTPCore
import JSON
import TestSupport
import Testing

/// The simulated Apple's `/_admin/` routes answer programs on this machine, never a web page
/// (`LocalAdminPolicy`); its Apple endpoints take any request.
@Suite("Apple admin API refuses web pages")
struct AdminPolicyTests {
    /// `Host` as a local client sends it, and as a DNS-rebinding page does: loopback or not,
    /// with the provider's port (none in process, where it is `https://appleid.test`).
    static func host(_ name: String, _ fixture: AppleFixture) -> String {
        let port = LocalAdminPolicy(serviceURL: fixture.baseURL).port
        return port == 443 ? name : "\(name):\(port)"
    }

    static func expectRefusal(
        _ response: HTTPResponse, _ status: Int, _ error: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.bodyText ?? "")", sourceLocation: sourceLocation)
        #expect(response.mediaType == "application/json", sourceLocation: sourceLocation)
        #expect(
            (try? response.json())?["error"]?.stringValue == error, "\(response.bodyText ?? "")",
            sourceLocation: sourceLocation)
    }

    @Test("a foreign Host, a cross-site post and a preflight are refused", arguments: Deployment.allCases)
    func refusals(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let authorize: JSONValue = ["email": "carol@example.com", "bundle_id": .string(appA)]
            let rebound = try await fixture.send(
                .json(
                    url: fixture.baseURL + "/_admin/authorize", body: authorize,
                    headers: ["Host": Self.host("attacker.example", fixture)]))
            Self.expectRefusal(rebound, 403, "forbidden")
            let state = try await fixture.send(
                HTTPRequest(
                    url: fixture.baseURL
                        + "/_admin/credential-state?email=carol%40example.com&bundle_id=\(appA)",
                    headers: ["Host": Self.host("attacker.example", fixture)]))
            Self.expectRefusal(state, 403, "forbidden")

            for path in ["/_admin/keys/rotate", "/_admin/authorize"] {
                let form = try await fixture.send(
                    HTTPRequest(
                        method: .post, url: fixture.baseURL + path,
                        headers: ["Content-Type": "text/plain", "Origin": "http://attacker.example"],
                        body: Array(authorize.serialized())))
                Self.expectRefusal(form, 403, "forbidden")
                let plain = try await fixture.send(
                    HTTPRequest(
                        method: .post, url: fixture.baseURL + path, headers: ["Content-Type": "text/plain"],
                        body: Array(authorize.serialized())))
                Self.expectRefusal(plain, 415, "unsupported_media_type")
                let preflight = try await fixture.send(
                    HTTPRequest(
                        method: .options, url: fixture.baseURL + path,
                        headers: [
                            "Origin": "http://attacker.example", "Access-Control-Request-Method": "POST",
                        ]))
                Self.expectRefusal(preflight, 403, "forbidden")
                #expect(!preflight.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
            }
            // Nothing was authorized, and a local client still is.
            let local = try await fixture.send(
                .json(
                    url: fixture.baseURL + "/_admin/authorize", body: authorize,
                    headers: ["Host": Self.host("localhost", fixture)]))
            #expect(local.status == 200, "\(local.bodyText ?? "")")
            #expect(try local.json()["email"] == "carol@example.com")
            // Apple's own endpoints are not admin: any Host reads the keys.
            let keys = try await fixture.send(
                HTTPRequest(
                    url: fixture.baseURL + "/auth/keys",
                    headers: ["Host": Self.host("attacker.example", fixture)]))
            #expect(keys.status == 200)
        }
    }
}
