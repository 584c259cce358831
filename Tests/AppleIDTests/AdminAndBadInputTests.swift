import AppleID
import Cryptography
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

@Suite("Apple admin API")
struct AdminTests {
    /// Admin authorize answers the credential; the second omits name and email; revoke-consent resets it.
    @Test("admin authorize, credential state, revoke consent", arguments: Deployment.allCases)
    func adminAuthorize(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let request: JSONValue = [
                "email": "carol@example.com", "given_name": "Carol", "family_name": "Cupertino",
                "bundle_id": .string(appA), "team_id": .string(teamA), "scopes": ["fullName", "email"],
                "nonce": "abc123", "private_email": true, "real_user_status": 1,
            ]
            let first = try await fixture.postJSON("/_admin/authorize", request)
            #expect(first.status == 200)
            let credential = try first.json()
            #expect(credential["full_name"] == ["given_name": "Carol", "family_name": "Cupertino"])
            #expect(credential["email"]?.stringValue?.hasSuffix("@privaterelay.appleid.com") == true)
            #expect(credential["real_user_status"] == 1)
            #expect(credential["authorized_scopes"] == ["fullName", "email"])
            let token = try #require(credential["identity_token"]?.stringValue)
            #expect(try claimsOf(token)["nonce"] == "abc123")
            #expect(try claimsOf(token)["sub"] == credential["user"])
            let code = try #require(credential["authorization_code"]?.stringValue)
            #expect(try await fixture.redeem(code).status == 200)

            let second = try await fixture.postJSON("/_admin/authorize", request).json()
            #expect(second["full_name"] == nil)
            #expect(second["email"] == nil)
            #expect(second["authorized_scopes"] == [])
            #expect(second["user"] == credential["user"])

            let state = try await fixture.get(
                "/_admin/credential-state?email=carol%40example.com&bundle_id=\(appA)")
            #expect(try state.json() == ["state": "authorized"])
            let user = try #require(credential["user"]?.stringValue)
            let byUser = try await fixture.get("/_admin/credential-state?user_id=\(user)&bundle_id=\(appA)")
            #expect(try byUser.json() == ["state": "authorized"])

            let revoked = try await fixture.postJSON(
                "/_admin/revoke-consent", ["email": "carol@example.com", "bundle_id": .string(appA)])
            #expect(try revoked.json() == ["state": "notFound"])
            let third = try await fixture.postJSON("/_admin/authorize", request).json()
            #expect(third["full_name"] == ["given_name": "Carol", "family_name": "Cupertino"])
        }
    }

    /// Admin authorize reports a cancel with Apple's code, and refuses malformed bodies.
    @Test("admin authorize failures", arguments: Deployment.allCases)
    func adminFailures(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let canceled = try await fixture.postJSON(
                "/_admin/authorize",
                ["email": "carol@example.com", "bundle_id": .string(appA), "decision": "cancel"])
            #expect(canceled.status == 400)
            #expect(try canceled.json()["error"] == "authorization_failed")
            #expect(try canceled.json()["code"] == 1001)
            for (body, message) in [
                (["bundle_id": .string(appA)], "email is required"),
                (["email": "carol@example.com"], "bundle_id is required"),
                (["email": "c@x", "bundle_id": .string(appA), "scopes": ["phone"]], "unknown scope"),
                (["email": "c@x", "bundle_id": .string(appA), "real_user_status": 7], "real_user_status"),
                (["email": "c@x", "bundle_id": .string(appA), "private_email": "yes"], "private_email"),
            ] as [(JSONValue, String)] {
                let response = try await fixture.postJSON("/_admin/authorize", body)
                #expect(response.status == 400)
                #expect(try response.json()["error"] == "invalid_request")
                #expect(
                    try response.json()["error_description"]?.stringValue?.contains(message) == true,
                    "\(message)")
            }
            let missing = try await fixture.get("/_admin/credential-state?email=c%40x")
            #expect(missing.status == 400)
        }
    }

    /// Developer keys registered over HTTP (JWK or PEM) sign accepted client secrets.
    @Test("admin developer keys", arguments: Deployment.allCases)
    func developerKeys(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let jwkKey = try P256PrivateKey(random: SeededRandom(seed: 0xD))
            let pemKey = try P256PrivateKey(random: SeededRandom(seed: 0xE))
            let byJWK = try await fixture.postJSON(
                "/_admin/developer-keys",
                ["team_id": "TEAMC00003", "key_id": "KEYJWK0001", "jwk": JWK(jwkKey.publicKey).json])
            #expect(byJWK.status == 201)
            let byPEM = try await fixture.postJSON(
                "/_admin/developer-keys",
                [
                    "team_id": "TEAMC00003", "key_id": "KEYPEM0001",
                    "public_key_pem": .string(pemKey.publicKey.pemRepresentation()),
                ])
            #expect(byPEM.status == 201)
            let bad = try await fixture.postJSON(
                "/_admin/developer-keys", ["team_id": "TEAMC00003", "key_id": "K", "public_key_pem": "nope"])
            #expect(bad.status == 400)

            for (keyID, key) in [("KEYJWK0001", jwkKey), ("KEYPEM0001", pemKey)] {
                let code = try fixture.authorize(bundleID: "com.example.gamma", team: "TEAMC00003")
                    .authorizationCode
                let secret = try AppleClientSecret.make(
                    teamID: "TEAMC00003", keyID: keyID, clientID: "com.example.gamma", privateKey: key,
                    issuedAt: fixture.clock.now())
                let response = try await fixture.postForm(
                    "/auth/token",
                    [
                        "grant_type": "authorization_code", "code": code, "client_id": "com.example.gamma",
                        "client_secret": secret,
                    ])
                #expect(response.status == 200, "\(keyID)")
            }
        }
    }

    /// Admin transfer moves the app: old tokens die, the old team's secrets stop working, the new team's work.
    @Test("admin transfer", arguments: Deployment.allCases)
    func transfer(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let tokens = try await fixture.redeem(try fixture.authorize().authorizationCode).json()
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            let moved = try await fixture.postJSON(
                "/_admin/transfer", ["bundle_id": .string(appA), "team_id": .string(teamB)])
            #expect(try moved.json() == ["bundle_id": .string(appA), "team_id": .string(teamB)])
            let state = try await fixture.get(
                "/_admin/credential-state?email=alice%40example.com&bundle_id=\(appA)")
            #expect(try state.json() == ["state": "transferred"])
            let oldTeam = try await fixture.postForm(
                "/auth/token",
                [
                    "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": appA,
                    "client_secret": try fixture.secret(appA, team: teamA),
                ])
            #expect(try oldTeam.json() == ["error": "invalid_client"])
            let newTeam = try await fixture.postForm(
                "/auth/token",
                [
                    "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": appA,
                    "client_secret": try fixture.secret(appA, team: teamB),
                ])
            #expect(try newTeam.json()["error"] == "invalid_grant")
            let code = try fixture.authorize(team: nil).authorizationCode
            #expect(try await fixture.redeem(code, team: teamB).status == 200)
        }
    }
}

@Suite("Apple bad input")
struct AppleBadInputTests {
    /// Malformed forms, wrong content types, huge bodies and garbage are 400 JSON, never 5xx.
    @Test("bad input is 400 JSON", arguments: Deployment.allCases)
    func badInput(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let url = fixture.baseURL + "/auth/token"
            let requests: [HTTPRequest] = [
                HTTPRequest(
                    method: .post, url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array("grant_type=%ZZ&code=%".utf8)),
                HTTPRequest(
                    method: .post, url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: [0xFF, 0xFE, 0x3D, 0x00]),
                .json(url: url, body: ["grant_type": "authorization_code"]),
                HTTPRequest(method: .post, url: url),
                .form(
                    url: url,
                    parameters: FormParameters([("grant_type", "authorization_code"), ("grant_type", "x")])),
                HTTPRequest(
                    method: .post, url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024 + 1)),
                .form(
                    url: url,
                    parameters: [
                        "grant_type": "authorization_code", "code": "x", "client_id": appA,
                        "client_secret": "eyJhbGciOiJFUzI1NiJ9.\u{1}.%%%",
                    ]),
                .form(
                    url: fixture.baseURL + "/auth/revoke",
                    parameters: [
                        "client_id": appA, "client_secret": String(repeating: "x.", count: 5000),
                        "token": "t",
                    ]),
                .json(url: fixture.baseURL + "/_admin/authorize", body: ["email"]),
                HTTPRequest(
                    method: .post, url: fixture.baseURL + "/_admin/authorize",
                    headers: ["Content-Type": "application/json"], body: Array("{\"email\":".utf8)),
            ]
            for (index, request) in requests.enumerated() {
                let response = try await fixture.send(request)
                #expect(response.status == 400, "request \(index)")
                #expect(response.mediaType == "application/json", "request \(index)")
                #expect(try response.json()["error"]?.stringValue != nil, "request \(index)")
            }
        }
    }

    /// Unknown paths are 404 and wrong methods 405 with `Allow`, as JSON; paths outside the prefix are 404.
    @Test("404 and 405", arguments: Deployment.allCases)
    func routing(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let missing = try await fixture.get("/auth/nope")
            #expect(missing.status == 404)
            #expect(try missing.json()["error"] == "not_found")
            let wrong = try await fixture.get("/auth/token")
            #expect(wrong.status == 405)
            #expect(wrong.headers["Allow"] == "POST")
            #expect(try wrong.json()["error"] == "method_not_allowed")
            if deployment == .loopback {
                let outside = try await fixture.send(
                    HTTPRequest(url: String(fixture.baseURL.dropLast("/apple".count)) + "/auth/keys"))
                #expect(outside.status == 404)
                let lookalike = try await fixture.send(HTTPRequest(url: fixture.baseURL + "x/auth/keys"))
                #expect(lookalike.status == 404)
            }
        }
    }
}
