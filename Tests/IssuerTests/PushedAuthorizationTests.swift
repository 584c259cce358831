import HTTPCore
import JSON
import TestSupport
import Testing

@testable import Issuer

/// The default tenant serving pushed authorization requests under `policy`, breaking
/// `deviations`, with a confidential web client beside the native app.
func pushingTenant(
    _ policy: PushedAuthorizationPolicy = .allowed, deviations: Set<IssuerDeviation> = []
) -> Tenant {
    var tenant = Tenant.default
    tenant.pushedAuthorizationRequests = policy
    tenant.deviations = deviations
    tenant.clients.append(
        ClientRegistration(id: "web", secret: "web-secret", redirectURIs: ["https://web.example/cb"]))
    return tenant
}

extension IssuerFixture {
    /// `POST /par` with a form.
    func push(_ parameters: FormParameters = NativeApp.authorization(), headers: HTTPHeaders = [:])
        async throws -> HTTPResponse
    {
        try await postForm("/par", parameters, headers: headers)
    }

    /// The `request_uri` of a push that must succeed.
    func pushedRequestURI(
        _ parameters: FormParameters = NativeApp.authorization(), headers: HTTPHeaders = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let response = try await push(parameters, headers: headers)
        try #require(
            response.status == 201, "push refused: \(response.bodyText ?? "")", sourceLocation: sourceLocation
        )
        return try #require(
            try response.jsonBody()["request_uri"]?.stringValue, sourceLocation: sourceLocation)
    }
}

extension Browser {
    /// `GET /authorize` with a pushed request's `request_uri`, and `client_id` unless `nil`.
    mutating func authorize(requestURI: String, clientID: String? = NativeApp.clientID) async throws
        -> HTTPResponse
    {
        var parameters: FormParameters = ["request_uri": requestURI]
        if let clientID { parameters["client_id"] = clientID }
        return try await authorize(parameters)
    }
}

/// Expects the error page, naming `code` (the request's client is not established, so nothing
/// goes to a redirect URI).
func expectPushedRequestRefused(
    _ response: HTTPResponse, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let page = try expectErrorPage(response, sourceLocation: sourceLocation)
    #expect(
        page.errors.first?.contains("The request was refused: \(code) (") == true, "\(page.errors)",
        sourceLocation: sourceLocation)
}

/// Pushed authorization requests (RFC 9126): `POST /par`, and its `request_uri` at `/authorize`.
@Suite("Pushed authorization requests")
struct PushedAuthorizationTests {
    /// A push answers 201 with a fresh request_uri; the request_uri then signs the user in as
    /// the pushed request says, whatever else the query carries, and the code redeems with the
    /// PKCE verifier of the pushed challenge.
    @Test("push, authorize with request_uri, redeem the code", arguments: Deployment.allCases)
    func happyPath(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: pushingTenant()) { fixture in
            let response = try await fixture.push()
            #expect(response.status == 201, "\(response.bodyText ?? "")")
            #expect(response.headers["Cache-Control"] == "no-store")
            let body = try response.jsonBody()
            #expect(body["expires_in"] == 60)
            let requestURI = try #require(body["request_uri"]?.stringValue)
            #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
            #expect(requestURI.utf8.count == "urn:ietf:params:oauth:request_uri:".utf8.count + 43)
            #expect(try await fixture.pushedRequestURI() != requestURI, "each push gets its own")

            var browser = Browser(fixture)
            // RFC 9126 §4: parameters beside client_id and request_uri are ignored.
            let query: FormParameters = [
                "client_id": NativeApp.clientID, "request_uri": requestURI, "scope": "bogus",
                "state": "other", "redirect_uri": "com.example.app://elsewhere", "response_type": "token",
            ]
            let callback = try redirectParameters(
                try await browser.finishSignIn(from: try await browser.authorize(query)))
            #expect(callback["state"] == NativeApp.state)
            #expect(callback["iss"] == fixture.baseURL)
            let code = try #require(callback["code"])
            let tokens = try await fixture.redeem(code, verifier: testVerifier)
            #expect(tokens.status == 200, "\(tokens.bodyText ?? "")")
            #expect(try tokens.jsonBody()["refresh_token"]?.stringValue != nil)
        }
    }

    /// A confidential client pushes with its credentials (here HTTP Basic, no client_id in the
    /// body), and the request_uri is its own.
    @Test("a confidential client pushes with HTTP Basic")
    func confidentialClient() async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant()) { fixture in
            let request = NativeApp.authorization([
                "client_id": nil, "redirect_uri": "https://web.example/cb", "code_challenge": nil,
                "code_challenge_method": nil,
            ])
            let requestURI = try await fixture.pushedRequestURI(
                request, headers: ["Authorization": basicAuthorization("web", "web-secret")])
            var browser = Browser(fixture)
            try expectPushedRequestRefused(
                try await browser.authorize(requestURI: requestURI), "invalid_request")
            try expectLoginPage(try await browser.authorize(requestURI: requestURI, clientID: "web"))
        }
    }

    /// A refused push is an RFC 6749 JSON error, never a redirect (RFC 9126 §2.3).
    @Test(
        "push errors are JSON",
        arguments: [
            (
                "redirect_uri not registered", ["redirect_uri": "com.example.app://evil"], [:], 400,
                "invalid_request"
            ),
            (
                "request_uri pushed", ["request_uri": "urn:ietf:params:oauth:request_uri:x"], [:], 400,
                "invalid_request"
            ),
            ("unknown scope", ["scope": "openid bogus"], [:], 400, "invalid_scope"),
            (
                "no code_challenge", ["code_challenge": nil, "code_challenge_method": nil], [:], 400,
                "invalid_request"
            ),
            ("request object", ["request": "e30.e30."], [:], 400, "request_not_supported"),
            ("no client_id", ["client_id": nil], [:], 401, "invalid_client"),
            ("unknown client", ["client_id": "nobody"], [:], 401, "invalid_client"),
            (
                "wrong client secret", ["client_id": "web", "redirect_uri": "https://web.example/cb"],
                ["Authorization": basicAuthorization("web", "wrong")], 401, "invalid_client"
            ),
            (
                "confidential client without its secret",
                ["client_id": "web", "redirect_uri": "https://web.example/cb"], [:], 401, "invalid_client"
            ),
        ] as [(String, [String: String?], HTTPHeaders, Int, String)])
    func pushErrors(
        name: String, changes: [String: String?], headers: HTTPHeaders, status: Int, code: String
    ) async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant()) { fixture in
            let response = try await fixture.push(NativeApp.authorization(changes), headers: headers)
            expectError(response, status, code)
            #expect(response.headers["Location"] == nil)
            #expect(fixture.issuer.state.withLock { $0.pushedRequests.count } == 0)
        }
    }

    /// A push is a form: a JSON body, accepted at the token endpoint, is refused here.
    @Test("a push is a form")
    func pushIsAForm() async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant()) { fixture in
            let body: JSONValue = .object(
                NativeApp.authorization().pairs.reduce(into: [:]) { $0[$1.name] = .string($1.value) })
            expectError(try await fixture.postJSON("/par", body), 400, "invalid_request")
        }
    }

    /// RFC 9126 §4: the request_uri is the pushing client's; another `client_id`, or none, is
    /// refused on the error page, and the request_uri stays good for its own client.
    @Test("request_uri with another client_id")
    func anotherClient() async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant()) { fixture in
            let requestURI = try await fixture.pushedRequestURI()
            var browser = Browser(fixture)
            try expectPushedRequestRefused(
                try await browser.authorize(requestURI: requestURI, clientID: "web"), "invalid_request")
            try expectPushedRequestRefused(
                try await browser.authorize(requestURI: requestURI, clientID: nil), "invalid_request")
            try expectLoginPage(try await browser.authorize(requestURI: requestURI))
            // Each once (RFC 6749 §3.1).
            let twice = try await fixture.pushedRequestURI()
            try expectPushedRequestRefused(
                try await browser.authorize(
                    FormParameters([
                        ("client_id", NativeApp.clientID), ("request_uri", twice), ("request_uri", twice),
                    ])),
                "invalid_request")
            try expectPushedRequestRefused(
                try await browser.authorize(
                    FormParameters([
                        ("client_id", NativeApp.clientID), ("request_uri", twice), ("client_id", "web"),
                    ])),
                "invalid_request")
            try expectLoginPage(try await browser.authorize(requestURI: twice))
        }
    }

    /// An unknown request_uri, and one past its lifetime, are `invalid_request_uri` on the error
    /// page (RFC 9101 §6.2); the lifetime is the tenant's `pushed_request`.
    @Test("unknown and expired request_uri")
    func unknownAndExpired() async throws {
        var tenant = pushingTenant()
        tenant.lifetimes.pushedRequest = 30
        try await withIssuer(.inProcess, tenant: tenant) { fixture in
            var browser = Browser(fixture)
            try expectPushedRequestRefused(
                try await browser.authorize(requestURI: "urn:ietf:params:oauth:request_uri:unknown"),
                "invalid_request_uri")
            let response = try await fixture.push()
            #expect(try response.jsonBody()["expires_in"] == 30)
            let requestURI = try #require(try response.jsonBody()["request_uri"]?.stringValue)
            let fresh = try await fixture.pushedRequestURI()
            fixture.clock.advance(by: 29)
            try expectLoginPage(try await browser.authorize(requestURI: fresh))
            let unused = try await fixture.pushedRequestURI()
            fixture.clock.advance(by: 1)
            try expectPushedRequestRefused(
                try await browser.authorize(requestURI: requestURI), "invalid_request_uri")
            // Expired requests are swept, used or not.
            fixture.clock.advance(by: 30)
            _ = try await browser.authorize(requestURI: unused)
            #expect(fixture.issuer.state.withLock { $0.pushedRequests.count } == 0)
        }
    }

    /// RFC 9126 §4: a request_uri is used up by the authorization request that uses it.
    @Test("a request_uri is good once")
    func secondUse() async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant()) { fixture in
            let requestURI = try await fixture.pushedRequestURI()
            var browser = Browser(fixture)
            try expectLoginPage(try await browser.authorize(requestURI: requestURI))
            try expectPushedRequestRefused(
                try await browser.authorize(requestURI: requestURI), "invalid_request_uri")
        }
    }

    /// A pushed request is validated again where it is used: a client whose redirect URI was
    /// removed after the push gets the error page, not a redirect.
    @Test("the pushed request is validated again at /authorize")
    func validatedAgain() async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant()) { fixture in
            let requestURI = try await fixture.pushedRequestURI()
            fixture.issuer.state.withLock {
                $0.clients[NativeApp.clientID]?.redirectURIs = ["com.example.app://x"]
            }
            var browser = Browser(fixture)
            try expectErrorPage(try await browser.authorize(requestURI: requestURI))
        }
    }

    /// `required` refuses a plain authorization request at the client's redirect URI (RFC 9126
    /// §5) and serves a pushed one; `allowed` serves both.
    @Test("required refuses a plain request", arguments: [PushedAuthorizationPolicy.allowed, .required])
    func required(policy: PushedAuthorizationPolicy) async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant(policy)) { fixture in
            var browser = Browser(fixture)
            let plain = try await browser.authorize()
            if policy == .required {
                try expectAuthorizationError(plain, "invalid_request", fixture: fixture)
                let description = try redirectParameters(plain)["error_description"] ?? ""
                #expect(description.contains("pushed authorization requests are required"))
                // An unknown client still gets the page: its redirect URI is not trusted.
                try expectErrorPage(try await browser.authorize(NativeApp.authorization(["client_id": "x"])))
            } else {
                try expectLoginPage(plain)
            }
            try expectLoginPage(try await browser.authorize(requestURI: try await fixture.pushedRequestURI()))
        }
    }

    /// Discovery advertises the endpoint and whether it is required only when pushed requests
    /// are served (RFC 9126 §5); `off` serves no `/par`, and a request_uri is not supported.
    @Test("discovery per policy", arguments: PushedAuthorizationPolicy.allCases)
    func discovery(policy: PushedAuthorizationPolicy) async throws {
        try await withIssuer(.inProcess, tenant: pushingTenant(policy)) { fixture in
            let document = try await IssuerDeviationTests.discovery(fixture)
            switch policy {
            case .off:
                #expect(document["pushed_authorization_request_endpoint"] == nil)
                #expect(document["require_pushed_authorization_requests"] == nil)
                expectError(try await fixture.push(), 404, "not_found")
                var browser = Browser(fixture)
                try expectAuthorizationError(
                    try await browser.authorize(NativeApp.authorization(["request_uri": "urn:x"])),
                    "request_uri_not_supported", fixture: fixture)
            case .allowed, .required:
                #expect(
                    document["pushed_authorization_request_endpoint"]
                        == .string(fixture.baseURL + "/par"))
                #expect(document["require_pushed_authorization_requests"] == .bool(policy == .required))
            }
        }
    }

    /// The default tenant's discovery document does not change.
    @Test("off by default")
    func offByDefault() async throws {
        try await withIssuer(.inProcess) { fixture in
            let document = try await IssuerDeviationTests.discovery(fixture)
            #expect(document.keys.filter { $0.contains("pushed") }.isEmpty)
        }
    }

    /// Pushed requests are bounded like login transactions: the oldest is forgotten first.
    @Test("pushed requests are bounded")
    func bounded() async throws {
        var limits = IssuerLimits()
        limits.pushedAuthorizationRequests = 2
        try await withIssuer(.inProcess, tenant: pushingTenant(), limits: limits) { fixture in
            let first = try await fixture.pushedRequestURI()
            let second = try await fixture.pushedRequestURI()
            let third = try await fixture.pushedRequestURI()
            #expect(fixture.issuer.state.withLock { $0.pushedRequests.count } == 2)
            var browser = Browser(fixture)
            try expectPushedRequestRefused(
                try await browser.authorize(requestURI: first), "invalid_request_uri")
            try expectLoginPage(try await browser.authorize(requestURI: second))
            try expectLoginPage(try await browser.authorize(requestURI: third))
        }
    }
}
