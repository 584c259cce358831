import HTTPCore
import JSON
import TestSupport
import Testing

@testable import Issuer

/// Each pushed authorization request deviation breaks its rule of RFC 9126, and the same
/// requests without it are refused: `IssuerDeviation`, docs/issuer.md "Deviations".
@Suite("Pushed authorization request deviations")
struct PushedAuthorizationDeviationTests {
    /// par-request-uri-reusable: a request_uri used once is honoured again (RFC 9126 §4: one
    /// use); without the deviation the second use is `invalid_request_uri`.
    @Test("par-request-uri-reusable", arguments: [true, false])
    func requestURIReusable(deviates: Bool) async throws {
        let tenant = pushingTenant(deviations: deviates ? [.parRequestURIReusable] : [])
        try await withIssuer(.inProcess, tenant: tenant) { fixture in
            let requestURI = try await fixture.pushedRequestURI()
            var browser = Browser(fixture)
            try expectLoginPage(try await browser.authorize(requestURI: requestURI))
            let again = try await browser.authorize(requestURI: requestURI)
            if deviates {
                try expectLoginPage(again)
            } else {
                try expectPushedRequestRefused(again, "invalid_request_uri")
            }
        }
    }

    /// par-ignores-client-id: another client's `client_id`, or none, uses the request_uri (RFC
    /// 9126 §4: it MUST be the pushing client's); without the deviation both are refused.
    @Test("par-ignores-client-id", arguments: [true, false])
    func ignoresClientID(deviates: Bool) async throws {
        let tenant = pushingTenant(deviations: deviates ? [.parIgnoresClientID] : [])
        try await withIssuer(.inProcess, tenant: tenant) { fixture in
            var browser = Browser(fixture)
            for clientID in ["web", nil] as [String?] {
                let requestURI = try await fixture.pushedRequestURI()
                let response = try await browser.authorize(requestURI: requestURI, clientID: clientID)
                if deviates {
                    // The login page of the pushing client's request.
                    try expectLoginPage(response)
                    #expect(response.bodyText?.contains("Example App") == true)
                } else {
                    try expectPushedRequestRefused(response, "invalid_request")
                }
            }
        }
    }

    /// par-skips-redirect-uri-check: a push naming an unregistered redirect URI is accepted
    /// (RFC 9126 §2.1: it must be validated); the authorization endpoint still refuses it on its
    /// error page. Without the deviation the push is `invalid_request`.
    @Test("par-skips-redirect-uri-check", arguments: [true, false])
    func skipsRedirectURICheck(deviates: Bool) async throws {
        let tenant = pushingTenant(deviations: deviates ? [.parSkipsRedirectURICheck] : [])
        try await withIssuer(.inProcess, tenant: tenant) { fixture in
            let evil = NativeApp.authorization(["redirect_uri": "https://evil.example/cb"])
            let response = try await fixture.push(evil)
            if deviates {
                #expect(response.status == 201, "\(response.bodyText ?? "")")
                let requestURI = try #require(try response.jsonBody()["request_uri"]?.stringValue)
                var browser = Browser(fixture)
                let page = try expectErrorPage(try await browser.authorize(requestURI: requestURI))
                #expect(page.errors.first?.contains("redirect_uri is not registered") == true)
            } else {
                expectError(response, 400, "invalid_request")
            }
            // Other problems of the push are still refused, a missing redirect_uri among them.
            expectError(
                try await fixture.push(NativeApp.authorization(["redirect_uri": nil])), 400, "invalid_request"
            )
            expectError(
                try await fixture.push(NativeApp.authorization(["scope": "bogus"])), 400, "invalid_scope")
        }
    }

    /// par-omits-expires-in: the 201 answer has no `expires_in` (RFC 9126 §2.2: REQUIRED); the
    /// request_uri works all the same.
    @Test("par-omits-expires-in", arguments: [true, false])
    func omitsExpiresIn(deviates: Bool) async throws {
        let tenant = pushingTenant(deviations: deviates ? [.parOmitsExpiresIn] : [])
        try await withIssuer(.inProcess, tenant: tenant) { fixture in
            let response = try await fixture.push()
            #expect(response.status == 201)
            let body = try #require(try response.jsonBody().objectValue)
            #expect(body["expires_in"] == (deviates ? nil : .int(60)))
            let requestURI = try #require(body["request_uri"]?.stringValue)
            var browser = Browser(fixture)
            try expectLoginPage(try await browser.authorize(requestURI: requestURI))
        }
    }

    /// par-required-not-enforced: discovery still says pushed requests are required (RFC 9126
    /// §5), but a plain authorization request is served; without the deviation it is refused.
    @Test("par-required-not-enforced", arguments: [true, false])
    func requiredNotEnforced(deviates: Bool) async throws {
        let tenant = pushingTenant(.required, deviations: deviates ? [.parRequiredNotEnforced] : [])
        try await withIssuer(.inProcess, tenant: tenant) { fixture in
            let document = try await IssuerDeviationTests.discovery(fixture)
            #expect(document["require_pushed_authorization_requests"] == true)
            var browser = Browser(fixture)
            let plain = try await browser.authorize()
            if deviates {
                try expectLoginPage(plain)
            } else {
                try expectAuthorizationError(plain, "invalid_request", fixture: fixture)
            }
        }
    }
}

/// The pure decisions of RFC 9126, without HTTP.
@Suite("Pushed authorization request decisions")
struct PushedAuthorizationDecisionTests {
    static let record = PushedAuthorizationRecord(
        clientID: "app", parameters: ["client_id": "app"], expiresAt: 100)

    /// RFC 9126 §4: live, and the pushing client's; `par-ignores-client-id` lifts only the
    /// client rule, never the expiry.
    @Test(
        "using a request_uri",
        arguments: [
            ("app", 99, [], nil), ("app", 100, [], "invalid_request_uri"),
            ("other", 50, [], "invalid_request"),
            (nil, 50, [], "invalid_request"), ("other", 50, [.parIgnoresClientID], nil),
            (nil, 50, [.parIgnoresClientID], nil),
            ("other", 100, [.parIgnoresClientID], "invalid_request_uri"),
            ("other", 50, [.parRequestURIReusable], "invalid_request"),
        ] as [(String?, Int64, Set<IssuerDeviation>, String?)])
    func useProblem(clientID: String?, now: Int64, deviations: Set<IssuerDeviation>, expected: String?) {
        let problem = Self.record.useProblem(clientID: clientID, now: now, deviations: deviations)
        #expect(problem?.code == expected)
        #expect(problem?.status ?? 400 == 400)
    }

    /// RFC 9126 §5: only `required` refuses, only requests that were not pushed, and not with
    /// `par-required-not-enforced`.
    @Test("the policy's refusal", arguments: PushedAuthorizationPolicy.allCases)
    func policyRefusal(policy: PushedAuthorizationPolicy) {
        #expect(policy.refusal(pushed: true) == nil)
        #expect(policy.refusal(pushed: false)?.code == (policy == .required ? "invalid_request" : nil))
        #expect(policy.refusal(pushed: false, deviations: [.parRequiredNotEnforced]) == nil)
    }

    /// What a push keeps: the authorization parameters, with the authenticated client's id, and
    /// not the client's credentials or unknown parameters.
    @Test("pushed parameters")
    func pushedParameters() {
        let parameters = OAuthRequestParameters([
            "client_secret": "s", "client_assertion": "a", "scope": "openid", "response_type": "code",
            "extra": "x", "state": "s1",
        ])
        let kept = Issuer.pushedParameters(parameters, clientID: "web")
        #expect(kept.pairs.map(\.name) == ["client_id", "response_type", "scope", "state"])
        #expect(kept["client_id"] == "web")
    }
}
