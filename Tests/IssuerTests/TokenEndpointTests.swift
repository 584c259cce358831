import HTTPCore
import Issuer
import JSON
import OAuthCore
import TestSupport
import Testing

@Suite("Token endpoint: requests, grants and client authentication")
struct TokenEndpointTests {
    /// RFC 6749 §3.1: a repeated parameter is refused, and the code is not used up by it.
    @Test("duplicate parameter", arguments: Deployment.allCases)
    func duplicateParameter(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let code = fixture.code()
            let response = try await fixture.token(
                FormParameters([
                    ("grant_type", "authorization_code"), ("code", code), ("code", code),
                    ("redirect_uri", appRedirectURI), ("client_id", appClientID),
                    ("code_verifier", testVerifier),
                ]))
            expectError(response, 400, "invalid_request")
            #expect(oauthErrorDescription(response).contains("repeated"))
            #expect(try await fixture.redeem(code).status == 200)
        }
    }

    /// Missing grant_type is invalid_request; an unknown one unsupported_grant_type.
    @Test("missing and unknown grant types", arguments: Deployment.allCases)
    func grantTypes(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            expectError(try await fixture.token(["client_id": appClientID]), 400, "invalid_request")
            expectError(
                try await fixture.token(["grant_type": "password", "client_id": appClientID]), 400,
                "unsupported_grant_type")
            expectError(
                try await fixture.token(["grant_type": "client_credentials", "client_id": appClientID]), 400,
                "unsupported_grant_type")
        }
    }

    /// A grant the client is not registered for is unauthorized_client.
    @Test("grant not allowed to the client", arguments: Deployment.allCases)
    func unauthorizedGrant(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let response = try await fixture.token([
                "grant_type": "refresh_token", "refresh_token": "anything", "client_id": "narrow",
            ])
            expectError(response, 400, "unauthorized_client")
        }
    }

    /// Public clients send client_id only: none is invalid_client, an unknown one too, and a
    /// public client sending a secret is refused.
    @Test("public client authentication", arguments: Deployment.allCases)
    func publicClients(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let none = try await fixture.token(["grant_type": "refresh_token", "refresh_token": "x"])
            expectError(none, 401, "invalid_client")
            let unknown = try await fixture.token([
                "grant_type": "refresh_token", "refresh_token": "x", "client_id": "nobody",
            ])
            expectError(unknown, 401, "invalid_client")
            let withSecret = try await fixture.token([
                "grant_type": "refresh_token", "refresh_token": "x", "client_id": appClientID,
                "client_secret": "guess",
            ])
            expectError(withSecret, 401, "invalid_client")
            #expect(oauthErrorDescription(withSecret).contains("public client"))
            let viaBasic = try await fixture.token(
                ["grant_type": "refresh_token", "refresh_token": "x"],
                headers: ["Authorization": basicAuthorization(appClientID, "guess")])
            expectError(viaBasic, 401, "invalid_client")
            #expect(viaBasic.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        }
    }

    /// Confidential clients: client_secret_basic (form-encoded id and secret) and
    /// client_secret_post work; both at once is invalid_request; a wrong or missing secret is 401,
    /// with a Basic challenge when Basic was tried.
    @Test("confidential client authentication", arguments: Deployment.allCases)
    func confidentialClients(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            func form(_ code: String) -> FormParameters {
                [
                    "grant_type": "authorization_code", "code": code,
                    "redirect_uri": "https://web.example/cb",
                    "code_verifier": testVerifier,
                ]
            }
            func webCode() -> String { fixture.code(clientID: "web", redirectURI: "https://web.example/cb") }
            let basic = try await fixture.token(
                form(webCode()), headers: ["Authorization": basicAuthorization("web", "web-secret/+:é")])
            #expect(basic.status == 200, "\(basic.bodyText ?? "")")

            var post = form(webCode())
            post["client_id"] = "web"
            post["client_secret"] = "web-secret/+:é"
            #expect(try await fixture.token(post).status == 200)

            let both = try await fixture.token(
                post, headers: ["Authorization": basicAuthorization("web", "web-secret/+:é")])
            expectError(both, 400, "invalid_request")

            let wrongBasic = try await fixture.token(
                form(webCode()), headers: ["Authorization": basicAuthorization("web", "web-secret")])
            expectError(wrongBasic, 401, "invalid_client")
            #expect(wrongBasic.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)

            var wrongPost = form(webCode())
            wrongPost["client_id"] = "web"
            wrongPost["client_secret"] = "nope"
            let wrongPostResponse = try await fixture.token(wrongPost)
            expectError(wrongPostResponse, 401, "invalid_client")
            #expect(wrongPostResponse.headers["WWW-Authenticate"] == nil)

            var missing = form(webCode())
            missing["client_id"] = "web"
            expectError(try await fixture.token(missing), 401, "invalid_client")

            let garbled = try await fixture.token(form(webCode()), headers: ["Authorization": "Basic !!!"])
            expectError(garbled, 401, "invalid_client")
        }
    }

    /// Bodies that are not a form or a JSON object of strings are invalid_request, never 5xx.
    @Test("malformed bodies", arguments: Deployment.allCases)
    func malformedBodies(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let url = fixture.baseURL + "/oauth/token"
            let cases: [(String, HTTPHeaders, [UInt8])] = [
                ("invalid UTF-8", ["Content-Type": MediaType.formURLEncoded], [0x67, 0x3D, 0xFF, 0xFE]),
                (
                    "escaped invalid UTF-8", ["Content-Type": MediaType.formURLEncoded],
                    Array("grant_type=%FF%FE".utf8)
                ),
                ("bad escape", ["Content-Type": MediaType.formURLEncoded], Array("grant_type=%ZZ".utf8)),
                (
                    "unknown content type", ["Content-Type": "text/plain"],
                    Array("grant_type=refresh_token".utf8)
                ),
                ("no content type", [:], Array("grant_type=refresh_token".utf8)),
                ("JSON array", ["Content-Type": MediaType.json], Array("[1,2]".utf8)),
                ("JSON string", ["Content-Type": MediaType.json], Array("\"grant_type\"".utf8)),
                ("malformed JSON", ["Content-Type": MediaType.json], Array("{\"grant_type\":".utf8)),
                ("JSON number value", ["Content-Type": MediaType.json], Array("{\"grant_type\":1}".utf8)),
                (
                    "JSON duplicate member", ["Content-Type": MediaType.json],
                    Array("{\"a\":\"1\",\"a\":\"2\"}".utf8)
                ),
            ]
            for (name, headers, body) in cases {
                let response = try await fixture.send(
                    HTTPRequest(method: .post, url: url, headers: headers, body: body))
                #expect(response.status == 400, "\(name): \(response.bodyText ?? "")")
                #expect(oauthError(response) == "invalid_request", "\(name)")
            }
        }
    }

    /// Empty parameters count as omitted (RFC 6749 §3.1).
    @Test("empty parameters are omitted", arguments: Deployment.allCases)
    func emptyParameters(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let response = try await fixture.token(["grant_type": "", "client_id": appClientID])
            expectError(response, 400, "invalid_request")
            #expect(oauthErrorDescription(response).contains("grant_type is required"))
        }
    }

    /// /_admin/tokens mints distinct, refreshable refresh tokens and checks its input.
    @Test("admin refresh token minting", arguments: Deployment.allCases)
    func adminTokens(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let minted = try await fixture.postJSON(
                "/_admin/tokens",
                ["client_id": .string(appClientID), "email": "alice@example.com", "count": 3])
            #expect(minted.status == 201)
            let tokens = try minted.jsonBody()["refresh_tokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(tokens.count == 3)
            #expect(Set(tokens).count == 3)
            for token in tokens {
                let response = try await fixture.refresh(token)
                #expect(response.status == 200)
                #expect(
                    try claims(of: try response.jsonBody()["access_token"]?.stringValue ?? "")["sub"]
                        == .string(aliceID))
            }
            let plain = try await fixture.send(
                .json(
                    url: fixture.baseURL + "/_admin/tokens",
                    body: ["client_id": .string(appClientID), "user_id": .string(aliceID), "count": 2],
                    headers: ["Accept": "text/plain"]))
            #expect(plain.status == 201)
            #expect(plain.bodyText?.split(separator: "\n").count == 2)
            let tooMany = try await fixture.postJSON(
                "/_admin/tokens",
                ["client_id": .string(appClientID), "user_id": .string(aliceID), "count": 200_001])
            expectError(tooMany, 400, "invalid_request")
            let noUser = try await fixture.postJSON(
                "/_admin/tokens", ["client_id": .string(appClientID), "email": "nobody@example.com"])
            expectError(noUser, 400, "invalid_request")
        }
    }

    /// The request log shows token requests without the bearer secrets they carry.
    @Test("request log redacts tokens", arguments: Deployment.allCases)
    func logRedaction(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let token = try #require(try await fixture.signIn().refreshToken)
            _ = try await fixture.refresh(token)
            _ = try await fixture.revoke(token)
            let log = try await fixture.get("/_admin/requests").jsonBody()["requests"]?.arrayValue ?? []
            let parameters = log.compactMap { $0["parameters"] }
            #expect(parameters.contains { $0["refresh_token"] == "[redacted]" })
            #expect(parameters.contains { $0["token"] == "[redacted]" })
            #expect(!log.contains { $0.serializedString().contains(token) })
        }
    }
}
