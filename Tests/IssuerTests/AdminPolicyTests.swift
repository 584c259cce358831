import HTTPCore
import Issuer
import JOSE
import JSON
import TestSupport
import Testing

/// The admin API answers programs on this machine, never a web page (`LocalAdminPolicy`).
@Suite("Issuer admin API refuses web pages")
struct AdminPolicyTests {
    /// The `Host` a local client sends: loopback and the issuer's port (in process, where the
    /// issuer is `http://issuer.test`, port 80 and no port in `Host`).
    static func loopbackHost(_ fixture: IssuerFixture) -> String {
        let port = LocalAdminPolicy(serviceURL: fixture.baseURL).port
        return port == 80 ? "localhost" : "127.0.0.1:\(port)"
    }

    static func foreignHost(_ fixture: IssuerFixture) -> String {
        let port = LocalAdminPolicy(serviceURL: fixture.baseURL).port
        return port == 80 ? "attacker.example" : "attacker.example:\(port)"
    }

    /// A DNS-rebinding page (its own name in `Host`) can neither read nor mint; a local client
    /// sending the loopback `Host` can; the OAuth endpoints take any `Host`.
    @Test("a foreign Host is refused", arguments: Deployment.allCases)
    func foreignHost(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let foreign = Self.foreignHost(fixture)
            let users = try await fixture.get("/_admin/users", headers: ["Host": foreign])
            expectError(users, 403, "forbidden")
            #expect(users.mediaType == "application/json")
            #expect(oauthErrorDescription(users).contains("attacker.example"))
            let minted = try await fixture.send(
                .json(
                    url: fixture.baseURL + "/_admin/tokens",
                    body: ["client_id": .string(appClientID), "email": "alice@example.com"],
                    headers: ["Host": foreign]))
            expectError(minted, 403, "forbidden")
            #expect(minted.bodyText?.contains("refresh_token") == false)

            let local = try await fixture.get("/_admin/users", headers: ["Host": Self.loopbackHost(fixture)])
            #expect(local.status == 200)
            let discovery = try await fixture.get(
                "/.well-known/openid-configuration", headers: ["Host": foreign])
            #expect(discovery.status == 200)
        }
    }

    /// A cross-site form post (`text/plain`, the page's `Origin`) resets nothing and rotates no
    /// key; without the `Origin` it is refused for its content type; a JSON post from the
    /// issuer's own origin goes through.
    @Test("a cross-site form post is refused", arguments: Deployment.allCases)
    func crossSitePost(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            _ = try await fixture.postJSON("/_admin/users", ["email": "mallory-target@example.com"])
            func post(_ path: String, contentType: String, origin: String?) async throws -> HTTPResponse {
                var headers: HTTPHeaders = ["Content-Type": contentType]
                if let origin { headers["Origin"] = origin }
                return try await fixture.send(
                    HTTPRequest(
                        method: .post, url: fixture.baseURL + path, headers: headers, body: Array("{}".utf8)))
            }
            for path in ["/_admin/reset", "/_admin/keys/rotate"] {
                expectError(
                    try await post(path, contentType: "text/plain", origin: "http://attacker.example"), 403,
                    "forbidden")
                expectError(try await post(path, contentType: "text/plain", origin: "null"), 403, "forbidden")
                let plain = try await post(path, contentType: "text/plain", origin: nil)
                expectError(plain, 415, "unsupported_media_type")
                let form = try await post(path, contentType: "application/x-www-form-urlencoded", origin: nil)
                expectError(form, 415, "unsupported_media_type")
            }
            let users = try await fixture.get("/_admin/users").jsonBody()["users"]?.arrayValue ?? []
            #expect(users.contains { $0["email"] == "mallory-target@example.com" })
            let keys = try JWKSet.parse(try await fixture.get("/.well-known/jwks.json").body)
            #expect(keys.keys.count == 1)

            let ownOrigin = "http://" + Self.loopbackHost(fixture)
            let rotated = try await post(
                "/_admin/keys/rotate", contentType: "application/json; charset=utf-8", origin: ownOrigin)
            #expect(rotated.status == 200)
            let reset = try await post("/_admin/reset", contentType: "application/json", origin: nil)
            #expect(reset.status == 200)
        }
    }

    /// A CORS preflight gets a 403 and no `Access-Control-Allow-*` header, so the browser never
    /// sends the JSON post it asked about.
    @Test("a CORS preflight is refused", arguments: Deployment.allCases)
    func preflight(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            for origin in ["http://attacker.example", "http://" + Self.loopbackHost(fixture)] {
                let response = try await fixture.send(
                    HTTPRequest(
                        method: .options, url: fixture.baseURL + "/_admin/reset",
                        headers: [
                            "Origin": origin, "Access-Control-Request-Method": "POST",
                            "Access-Control-Request-Headers": "content-type",
                        ]))
                expectError(response, 403, "forbidden")
                #expect(!response.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
            }
        }
    }
}
