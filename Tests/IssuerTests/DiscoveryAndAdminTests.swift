import Clocks
import Cryptography
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

@Suite("Issuer discovery, keys and admin API")
struct DiscoveryAndAdminTests {
    /// Discovery names every endpoint at Auth0's paths and advertises what the issue requires.
    @Test("discovery document", arguments: Deployment.allCases)
    func discovery(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let response = try await fixture.get("/.well-known/openid-configuration")
            #expect(response.status == 200)
            let document = try response.jsonBody()
            #expect(document["issuer"] == .string(fixture.baseURL))
            for (key, path) in [
                ("authorization_endpoint", "/authorize"), ("token_endpoint", "/oauth/token"),
                ("userinfo_endpoint", "/userinfo"), ("jwks_uri", "/.well-known/jwks.json"),
                ("revocation_endpoint", "/oauth/revoke"), ("end_session_endpoint", "/oidc/logout"),
            ] {
                #expect(document[key] == .string(fixture.baseURL + path), "\(key)")
            }
            #expect(document["code_challenge_methods_supported"] == ["S256"])
            #expect(document["authorization_response_iss_parameter_supported"] == true)
            #expect(
                document["grant_types_supported"]?.arrayValue?.contains(.string(GrantType.tokenExchange))
                    == true)
            #expect(document["dpop_signing_alg_values_supported"]?.arrayValue?.isEmpty == false)
        }
    }

    /// The JWKS publishes the public signing key only, and a rotation adds a key while keeping the old.
    @Test("JWKS and key rotation", arguments: Deployment.allCases)
    func keys(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let first = try JWKSet.parse(try await fixture.get("/.well-known/jwks.json").body)
            #expect(first.keys.count == 1)
            #expect(first.keys.allSatisfy { !$0.isPrivate && $0.keyID != nil && $0.algorithm == "ES256" })
            let rotated = try await fixture.postJSON("/_admin/keys/rotate", [:])
            #expect(rotated.status == 200)
            let second = try JWKSet.parse(try await fixture.get("/.well-known/jwks.json").body)
            #expect(second.keys.count == 2)
            #expect(second.keys.contains { $0.keyID == first.keys[0].keyID })
            #expect(second.keys[0].keyID == (try rotated.jsonBody())["kid"]?.stringValue)
        }
    }

    /// `/_admin/clock` moves the issuer's clock by `advance` or to an `offset`.
    @Test("admin clock", arguments: Deployment.allCases)
    func clock(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let advanced = try await fixture.postJSON("/_admin/clock", ["advance": 90])
            #expect(try advanced.jsonBody()["now"] == .int(testEpoch + 90))
            #expect(fixture.clock.now() == testEpoch + 90)
            let offset = try await fixture.postJSON("/_admin/clock", ["offset": -30])
            #expect(try offset.jsonBody()["now"] == .int(testEpoch - 30))
            let bad = try await fixture.postJSON("/_admin/clock", ["advance": "soon"])
            #expect(bad.status == 400)
            #expect(try bad.jsonBody()["error"] == "invalid_request")
        }
    }

    /// Issue 27: a move that would overflow the clock (an offset of Int64.max, two advances
    /// of 2^62) is a 400 `invalid_request` that names the range, and the clock stays put.
    @Test("admin clock refuses moves out of range", arguments: Deployment.allCases)
    func clockOutOfRange(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let bodies: [JSONValue] = [
                ["offset": .int(.max)], ["offset": .int(.min)], ["advance": .int(1 << 62)],
                ["advance": .int(1 << 62)], ["advance": .int(.max)], ["advance": .int(.min)],
            ]
            for body in bodies {
                let refused = try await fixture.postJSON("/_admin/clock", body)
                #expect(refused.status == 400, "\(body)")
                let error = try refused.jsonBody()
                #expect(error["error"] == "invalid_request")
                #expect(error["error_description"]?.stringValue?.contains("years 0001 to 9999") == true)
                #expect(fixture.clock.now() == testEpoch)
            }
            // The last second in range is still reachable.
            let latest = try await fixture.postJSON(
                "/_admin/clock", ["offset": .int(253_402_300_799 - testEpoch)])
            #expect(try latest.jsonBody()["now"] == .int(253_402_300_799))
            let beyond = try await fixture.postJSON("/_admin/clock", ["advance": 1])
            #expect(beyond.status == 400)
            #expect(fixture.clock.now() == 253_402_300_799)
        }
    }

    /// Issue 27: a redirect URI with user information is refused at registration, in either
    /// list, as a tenant file refuses it.
    @Test("admin clients refuse redirect URIs with user information", arguments: Deployment.allCases)
    func clientUserInfo(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            for (list, uri) in [
                ("redirect_uris", "http://x@127.0.0.1/callback"),
                ("redirect_uris", "https://user:password@app.example/cb"),
                ("post_logout_redirect_uris", "com.example.app://x@auth/signed-out"),
            ] {
                let refused = try await fixture.postJSON(
                    "/_admin/clients", ["client_id": "userinfo", list: [.string(uri)]])
                #expect(refused.status == 400, "\(uri)")
                let description = try refused.jsonBody()["error_description"]?.stringValue ?? ""
                #expect(description.contains("must not have user information"), "\(description)")
            }
        }
    }

    /// A client's `jwks` holds public keys only: a private EC key, RSA factors without `d`
    /// and a symmetric `oct` key (which the set's parser skips as unusable) are all refused.
    @Test("admin clients refuse private and secret keys in jwks", arguments: Deployment.allCases)
    func clientPrivateKeys(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let key = try P256PrivateKey(random: SeededRandom(seed: 27))
            let publicKey = JWK(key.publicKey, keyID: "public").json
            var factor = publicKey.objectValue ?? [:]
            factor["p"] = "AQAB"
            let secret: JSONValue = ["kty": "oct", "kid": "hmac", "k": "c2VjcmV0"]
            let cases: [(JSONValue, String)] = [
                (JWK(key, keyID: "leaked").json, "it has d;"),
                (.object(factor), "it has p;"),
                (secret, "is a secret (symmetric) key: it has k;"),
            ]
            for (extra, reason) in cases {
                let refused = try await fixture.postJSON(
                    "/_admin/clients",
                    [
                        "client_id": "signed", "redirect_uris": ["com.example.signed://cb"],
                        "token_endpoint_auth_method": "private_key_jwt",
                        "jwks": ["keys": [publicKey, extra]],
                    ])
                #expect(refused.status == 400, "\(reason)")
                let description = try refused.jsonBody()["error_description"]?.stringValue ?? ""
                #expect(description.contains("key 2"), "\(description)")
                #expect(description.contains(reason), "\(description)")
            }
            let accepted = try await fixture.postJSON(
                "/_admin/clients",
                [
                    "client_id": "signed", "redirect_uris": ["com.example.signed://cb"],
                    "token_endpoint_auth_method": "private_key_jwt", "jwks": ["keys": [publicKey]],
                ])
            #expect(accepted.status == 201)
        }
    }

    /// Users and clients can be added and listed; reset restores the tenant.
    @Test("admin users, clients and reset", arguments: Deployment.allCases)
    func usersAndClients(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let created = try await fixture.postJSON(
                "/_admin/users",
                ["email": "carol@example.com", "password": "carol-password", "name": "Carol"])
            #expect(created.status == 201)
            let listed = try await fixture.get("/_admin/users").jsonBody()["users"]?.arrayValue ?? []
            #expect(listed.contains { $0["email"] == "carol@example.com" })
            #expect(!listed.contains { $0["password"] != nil })

            let client = try await fixture.postJSON(
                "/_admin/clients",
                ["client_id": "web", "client_secret": "s3cr3t", "redirect_uris": ["https://app.example/cb"]])
            #expect(client.status == 201)
            #expect(try client.jsonBody()["public"] == false)
            let badClient = try await fixture.postJSON(
                "/_admin/clients", ["client_id": "bad", "redirect_uris": ["myapp://cb"]])
            #expect(badClient.status == 400)

            _ = try await fixture.postJSON("/_admin/reset", [:])
            let after = try await fixture.get("/_admin/users").jsonBody()["users"]?.arrayValue ?? []
            #expect(after.count == 2)
            // The request log starts afresh with the reset itself.
            let log = fixture.issuer.requestLog
            #expect(log.map(\.path) == ["/_admin/reset", "/_admin/users"])
            #expect(log.first?.sequence == 1)
        }
    }

    /// Faults are armed, listed, consumed and cleared; an unknown id is a 400 listing the known ones.
    @Test("admin faults and transport faults", arguments: Deployment.allCases)
    func faults(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let armed = try await fixture.postJSON("/_admin/faults", ["fault": "http-503", "count": 2])
            #expect(armed.status == 201)
            #expect(try await fixture.get("/.well-known/jwks.json").status == 503)
            #expect(try await fixture.get("/.well-known/jwks.json").status == 503)
            #expect(try await fixture.get("/.well-known/jwks.json").status == 200)

            _ = try await fixture.postJSON("/_admin/faults", ["fault": "http-429", "retry_after": 7])
            let limited = try await fixture.get("/.well-known/openid-configuration")
            #expect(limited.status == 429)
            #expect(limited.headers["Retry-After"] == "7")

            _ = try await fixture.postJSON("/_admin/faults", ["fault": "http-html-error"])
            let html = try await fixture.get("/.well-known/openid-configuration")
            #expect(html.mediaType == "text/html")
            #expect(throws: HTTPError.self) { try html.jsonBody() }

            // The status of an HTML error page is the one asked for.
            _ = try await fixture.postJSON("/_admin/faults", ["fault": "http-html-error", "status": 504])
            let gatewayTimeout = try await fixture.get("/.well-known/jwks.json")
            #expect(gatewayTimeout.status == 504)
            #expect(gatewayTimeout.mediaType == "text/html")

            // An RFC 6749 §5.2 error a capture recorded, only on the path it names.
            _ = try await fixture.postJSON(
                "/_admin/faults",
                [
                    "fault": "oauth-error", "path": "/token", "status": 401, "error": "invalid_client",
                    "error_description": "recorded refusal",
                ])
            #expect(try await fixture.get("/.well-known/jwks.json").status == 200)
            let refused = try await fixture.postForm("/token", ["grant_type": "client_credentials"])
            expectError(refused, 401, "invalid_client")
            #expect(oauthErrorDescription(refused) == "recorded refusal")

            // Two drops: libcurl silently retries once when a kept-alive connection dies unanswered.
            _ = try await fixture.postJSON("/_admin/faults", ["fault": "http-drop-connection", "count": 2])
            await #expect(throws: HTTPError.self) { try await fixture.get("/.well-known/jwks.json") }
            let log = fixture.issuer.requestLog.filter {
                $0.path == "/.well-known/jwks.json" && $0.status == 0
            }
            #expect(!log.isEmpty, "the dropped request was processed and logged")

            let unknown = try await fixture.postJSON("/_admin/faults", ["fault": "rp-made-up"])
            #expect(unknown.status == 400)
            #expect(
                try unknown.jsonBody()["error_description"]?.stringValue?.contains("rp-id_token-sub") == true)

            _ = try await fixture.postJSON("/_admin/faults", ["fault": "http-500", "count": 5])
            _ = try await fixture.send(HTTPRequest(method: .delete, url: fixture.baseURL + "/_admin/faults"))
            #expect(try await fixture.get("/.well-known/jwks.json").status == 200)
        }
    }

    /// The request log records method, path, status and parameters, with secrets redacted.
    @Test("request log", arguments: Deployment.allCases)
    func requestLog(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            _ = try await fixture.get("/.well-known/openid-configuration?x=1")
            _ = try await fixture.postForm("/oauth/token", ["grant_type": "password", "password": "hunter2"])
            let log = try await fixture.get("/_admin/requests").jsonBody()["requests"]?.arrayValue ?? []
            #expect(log.count == 2)
            #expect(log[0]["path"] == "/.well-known/openid-configuration")
            #expect(log[0]["parameters"]?["x"] == "1")
            #expect(log[1]["parameters"]?["password"] == "[redacted]")

            // `since` leaves out what was already read, over HTTP and in process alike.
            let first = log[0]["sequence"]?.int64Value.map { Int($0) } ?? -1
            let later = try await fixture.get("/_admin/requests?since=\(first)").jsonBody()["requests"]
            #expect(later?.arrayValue?.map { $0["path"] } == ["/oauth/token", "/_admin/requests"])
            #expect(
                fixture.issuer.requestLog(since: first + 1).map(\.path) == [
                    "/_admin/requests", "/_admin/requests",
                ])

            // A `since` that is not a whole number is refused, not read as "from the start".
            for bad in ["abc", "9223372036854775808", "1?p0=v", "", "%ZZ"] {
                let refused = try await fixture.get("/_admin/requests?since=\(bad)")
                #expect(refused.status == 400, "since=\(bad)")
                #expect(try refused.jsonBody()["error"] == "invalid_request", "since=\(bad)")
            }
        }
    }

    /// Bodies are logged alike whether kept raw (small) or decoded at once (over 4 KiB): form and
    /// JSON parameters, merged over the query's, secrets redacted.
    @Test("request log of small and large bodies")
    func requestLogBodies() async throws {
        try await withIssuer(.inProcess) { fixture in
            let long = String(repeating: "x", count: 5000)
            _ = try await fixture.postForm(
                "/oauth/token?q=1&grant_type=query",
                ["grant_type": "password", "password": "p", "long": long])
            _ = try await fixture.postForm("/oauth/token?q=2", ["grant_type": "password", "password": "p"])
            _ = try await fixture.postJSON(
                "/oauth/revoke", ["token": "secret", "n": 1, "long": .string(long), "o": ["a": true]])
            _ = try await fixture.postJSON("/oauth/revoke", ["token": "secret", "n": 1])
            let log = fixture.issuer.requestLog
            #expect(log.count == 4)
            #expect(
                log[0].parameters == [
                    "q": "1", "grant_type": "password", "password": "[redacted]", "long": long,
                ])
            #expect(log[1].parameters == ["q": "2", "grant_type": "password", "password": "[redacted]"])
            #expect(
                log[2].parameters == ["token": "[redacted]", "n": "1", "long": long, "o": #"{"a":true}"#])
            #expect(log[3].parameters == ["token": "[redacted]", "n": "1"])
            #expect(log.allSatisfy { $0.method == "POST" && $0.status >= 400 })
            #expect(log.map(\.path) == ["/oauth/token", "/oauth/token", "/oauth/revoke", "/oauth/revoke"])
        }
    }

    /// Unknown paths are 404 and wrong methods 405 with `Allow`, as JSON errors.
    @Test("404 and 405", arguments: Deployment.allCases)
    func notFound(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            #expect(try await fixture.get("/nope").status == 404)
            let wrong = try await fixture.get("/oauth/token")
            #expect(wrong.status == 405)
            #expect(wrong.headers["Allow"] == "POST")
        }
    }
}

@Suite("Issuer bad input")
struct IssuerBadInputTests {
    /// A body over 4 MiB is refused with 413 and an OAuth JSON error, in process and over HTTP.
    @Test("oversized body is 413", arguments: Deployment.allCases)
    func oversized(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var request = HTTPRequest(
                method: .post, url: fixture.baseURL + "/oauth/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: [UInt8](repeating: UInt8(ascii: "a"), count: (4 << 20) + 1))
            request.timeout = .seconds(30)
            let response = try await fixture.send(request)
            #expect(response.status == 413)
            #expect(try response.jsonBody()["error"] == "invalid_request")
        }
    }
}
