import Foundation
import HTTPCore
import Issuer
import JSON
import TestSupport
import Testing

@Suite("Authorization endpoint")
struct AuthorizeTests {
    /// Login page, consent page, then a redirect with exactly code, state and iss.
    @Test("login, consent, code redirect", arguments: Deployment.allCases)
    func fullFlow(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let loginResponse = try await browser.authorize()
            #expect(loginResponse.mediaType == "text/html")
            #expect(loginResponse.headers["Cache-Control"] == "no-store")
            #expect(loginResponse.headers["X-Frame-Options"] == "DENY")
            #expect(
                loginResponse.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
            let login = try expectLoginPage(loginResponse)
            #expect(login.method == "post")
            #expect(login.hiddenFields["transaction"]?.isEmpty == false)
            #expect(login.hiddenFields["csrf"]?.isEmpty == false)
            #expect(login.input("username")?.type == "text")
            #expect(login.input("password")?.type == "password")
            #expect(login.input("username")?.value == "")

            let consentResponse = try await browser.submit(
                login, ["username": Alice.email, "password": Alice.password])
            #expect(consentResponse.headers["X-Frame-Options"] == "DENY")
            let consent = try expectConsentPage(consentResponse)
            #expect(consent.method == "post")
            #expect(consent.hiddenFields["transaction"] == login.hiddenFields["transaction"])
            #expect(consent.hiddenFields["csrf"]?.isEmpty == false)
            #expect(
                consent.hiddenFields["csrf"] != login.hiddenFields["csrf"], "a new stage gets a new token")
            let buttons = consent.buttons.map { "\($0.type) \($0.name ?? "") \($0.value ?? "")" }
            #expect(buttons.sorted() == ["submit action approve", "submit action deny"])
            let listed = try HTMLPage(consentResponse).listItems
            for scope in ["openid", "profile", "email", "offline_access"] {
                #expect(listed.contains { $0.hasPrefix(scope + " ") }, "\(scope) in \(listed)")
            }

            let redirect = try await browser.submit(consent, pressing: "approve")
            let parameters = try redirectParameters(redirect)
            #expect(Set(parameters.keys) == ["code", "state", "iss"])
            #expect(parameters["state"] == NativeApp.state)
            #expect(parameters["iss"] == fixture.baseURL)
            let code = try #require(parameters["code"])
            #expect(code.utf8.count == 43)
            #expect(code.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    /// `callback-state-altered`: the next redirect carries a `state` other than the request's
    /// (a tampered callback the client must refuse, RFC 6749 §10.12); the one after is intact.
    @Test("callback-state-altered fault", arguments: Deployment.allCases)
    func callbackStateAltered(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .callbackStateAltered))
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let consent = try expectConsentPage(
                try await browser.submit(login, ["username": Alice.email, "password": Alice.password]))
            let tampered = try redirectParameters(try await browser.submit(consent, pressing: "approve"))
            #expect(tampered["state"] != nil)
            #expect(tampered["state"] != NativeApp.state)
            #expect(tampered["code"] != nil)

            let again = try redirectParameters(try await browser.authorize())
            #expect(again["state"] == NativeApp.state)
        }
    }

    /// An unknown, missing or repeated client_id is a 400 page, never a redirect.
    @Test("invalid client_id is a page, not a redirect", arguments: Deployment.allCases)
    func invalidClient(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            try expectErrorPage(try await browser.authorize(NativeApp.authorization(["client_id": "nope"])))
            try expectErrorPage(try await browser.authorize(NativeApp.authorization(["client_id": nil])))
            var repeated = NativeApp.authorization()
            repeated.append("client_id", NativeApp.clientID)
            try expectErrorPage(try await browser.authorize(repeated))
        }
    }

    /// A missing, unregistered or near-miss redirect_uri is a 400 page, even when more is wrong.
    @Test("invalid redirect_uri is a page, not a redirect", arguments: Deployment.allCases)
    func invalidRedirectURI(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let refused: [String?] = [
                nil, "com.example.app://auth/callback/extra", "com.example.app://auth/Callback",
                "com.example.evil://auth/callback", "com.example.app://auth/callback?x=1",
                "com.example.app://auth/callback#fragment", "com.example.app:/auth/callback",
                "http://localhost:5000/callback", "http://127.0.0.2:5000/callback",
                "https://127.0.0.1/callback", "http://127.0.0.1:5000/other", "http://[::1]:5000/callback",
                "https://attacker.example/callback",
            ]
            for uri in refused {
                try expectErrorPage(
                    try await browser.authorize(NativeApp.authorization(["redirect_uri": uri])))
            }
            // Still a page when everything else is wrong too.
            try expectErrorPage(
                try await browser.authorize(
                    NativeApp.authorization([
                        "redirect_uri": "https://attacker.example/cb", "response_type": "token",
                        "scope": "bogus",
                    ])))
            var repeated = NativeApp.authorization()
            repeated.append("redirect_uri", NativeApp.redirectURI)
            try expectErrorPage(try await browser.authorize(repeated))
        }
    }

    /// Issue 27: a loopback redirect URI with user information (`http://x@127.0.0.1/…`) matched
    /// the registered loopback URI by host and reached the login page. It is an error page
    /// now, never the login page and never a redirect (RFC 6749 §4.1.2.1, RFC 3986 §3.2.1).
    @Test("redirect_uri with user information is a page, not a login", arguments: Deployment.allCases)
    func redirectURIWithUserInfo(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            for uri in [
                "http://x@127.0.0.1/callback", "http://x@127.0.0.1:5000/callback",
                "http://x:secret@127.0.0.1:5000/callback", "http://@127.0.0.1/callback",
                "http://127.0.0.1@127.0.0.1/callback",
            ] {
                let response = try await browser.authorize(NativeApp.authorization(["redirect_uri": uri]))
                #expect(response.headers["Location"] == nil, "\(uri)")
                let page = try expectErrorPage(response)
                #expect(page.source.contains("user information"), "\(uri)")
            }
        }
    }

    /// A loopback redirect URI may use any port (RFC 8252 §7.3); the code goes to that port.
    @Test("loopback redirect on any port", arguments: Deployment.allCases)
    func loopbackAnyPort(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            try expectLoginPage(
                try await browser.authorize(
                    NativeApp.authorization(["redirect_uri": NativeApp.loopbackRedirectURI])))
            let withPort = "http://127.0.0.1:49152/callback"
            let redirect = try await browser.signIn(NativeApp.authorization(["redirect_uri": withPort]))
            #expect(redirect.headers["Location"]?.hasPrefix(withPort + "?code=") == true)
            let parameters = try redirectParameters(redirect, to: withPort)
            #expect(parameters["state"] == NativeApp.state)
            // Errors go to the port too, once the URI is known to be the client's.
            let error = try await browser.authorize(
                NativeApp.authorization(["redirect_uri": "http://127.0.0.1:8123/callback", "scope": "bogus"]))
            try expectAuthorizationError(
                error, "invalid_scope", fixture: fixture, redirectURI: "http://127.0.0.1:8123/callback")
        }
    }

    /// A missing response_type is invalid_request; any value but code is unsupported_response_type.
    @Test("response_type", arguments: Deployment.allCases)
    func responseType(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            try expectAuthorizationError(
                try await browser.authorize(NativeApp.authorization(["response_type": nil])),
                "invalid_request",
                fixture: fixture)
            for value in ["token", "code id_token", "id_token", "CODE"] {
                try expectAuthorizationError(
                    try await browser.authorize(NativeApp.authorization(["response_type": value])),
                    "unsupported_response_type", fixture: fixture)
            }
            // Without state, the error has none either.
            try expectAuthorizationError(
                try await browser.authorize(
                    NativeApp.authorization(["response_type": "token", "state": nil])),
                "unsupported_response_type", fixture: fixture, state: nil)
        }
    }

    /// A repeated parameter is invalid_request (RFC 6749 §3.1); an empty one counts as absent.
    @Test("repeated and empty parameters", arguments: Deployment.allCases)
    func repeatedParameters(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            for name in ["scope", "response_type", "code_challenge", "prompt", "nonce"] {
                var parameters = NativeApp.authorization(["prompt": "login"])
                parameters.append(name, parameters[name] ?? "")
                try expectAuthorizationError(
                    try await browser.authorize(parameters), "invalid_request", fixture: fixture)
            }
            var withEmpty = NativeApp.authorization()
            withEmpty.append("nonce", "")
            withEmpty.append("prompt", "")
            try expectLoginPage(try await browser.authorize(withEmpty))
            // Unrecognised parameters are ignored, repeated or not (RFC 6749 §3.1).
            var withUnknown = NativeApp.authorization()
            withUnknown.append("ui_locales", "en")
            withUnknown.append("ui_locales", "fr")
            try expectLoginPage(try await browser.authorize(withUnknown))
        }
    }

    /// Public clients must send an S256 challenge: no challenge, plain, a missing method or a malformed challenge is refused.
    @Test("PKCE for public clients", arguments: Deployment.allCases)
    func pkce(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let refused: [[String: String?]] = [
                ["code_challenge": nil, "code_challenge_method": nil],
                ["code_challenge_method": "plain"],
                ["code_challenge_method": nil],
                ["code_challenge_method": "s256"],
                ["code_challenge": nil],
                ["code_challenge": String(NativeApp.codeChallenge.dropLast())],
                ["code_challenge": NativeApp.codeChallenge + "A"],
                ["code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM"],
                ["code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"],
                ["code_challenge": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-too-long-for-a-digest"],
            ]
            for changes in refused {
                let response = try await browser.authorize(NativeApp.authorization(changes))
                try expectAuthorizationError(response, "invalid_request", fixture: fixture)
            }
            try expectLoginPage(try await browser.authorize())
        }
    }

    /// A confidential client may omit PKCE but not use plain; the code keeps the redirect URI's own query.
    @Test("confidential client and redirect URI with a query", arguments: Deployment.allCases)
    func confidentialClient(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let redirectURI = "https://app.example/cb?tenant=blue"
            let created = try await fixture.postJSON(
                "/_admin/clients",
                ["client_id": "web", "client_secret": "s3cr3t", "redirect_uris": [.string(redirectURI)]])
            #expect(created.status == 201)
            var browser = Browser(fixture)
            let web: [String: String?] = [
                "client_id": "web", "redirect_uri": redirectURI, "code_challenge": nil,
                "code_challenge_method": nil,
            ]
            try expectAuthorizationError(
                try await browser.authorize(
                    NativeApp.authorization(
                        web.merging(["code_challenge": "x", "code_challenge_method": "plain"]) { $1 })),
                "invalid_request", fixture: fixture, redirectURI: redirectURI)
            try expectAuthorizationError(
                try await browser.authorize(
                    NativeApp.authorization(web.merging(["code_challenge_method": "S256"]) { $1 })),
                "invalid_request", fixture: fixture, redirectURI: redirectURI)
            let redirect = try await browser.signIn(NativeApp.authorization(web))
            let parameters = try redirectParameters(redirect, to: redirectURI)
            #expect(parameters["tenant"] == "blue")
            #expect(parameters["code"] != nil)
            #expect(redirect.headers["Location"]?.hasPrefix(redirectURI + "&code=") == true)
        }
    }

    /// A client without the authorization_code grant gets unauthorized_client.
    @Test("unauthorized_client", arguments: Deployment.allCases)
    func unauthorizedClient(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            let redirectURI = "com.example.other://cb"
            _ = try await fixture.postJSON(
                "/_admin/clients",
                [
                    "client_id": "other", "redirect_uris": [.string(redirectURI)],
                    "grant_types": ["refresh_token"],
                ])
            var browser = Browser(fixture)
            let response = try await browser.authorize(
                NativeApp.authorization(["client_id": "other", "redirect_uri": redirectURI]))
            try expectAuthorizationError(
                response, "unauthorized_client", fixture: fixture, redirectURI: redirectURI)
        }
    }

    /// Scope is required and must be known: the tenant's, or the selected (or default) API's.
    @Test("scope and audience", arguments: Deployment.allCases)
    func scopeAndAudience(deployment: Deployment) async throws {
        var tenant = Tenant.default
        tenant.audiences.append(APIAudience(identifier: "https://billing.example", scopes: ["pay:invoices"]))
        try await withIssuer(deployment, tenant: tenant) { fixture in
            var browser = Browser(fixture)
            for scope in ["openid bogus", "", "   ", "openid\tprofile", "pay:invoices"] {
                try expectAuthorizationError(
                    try await browser.authorize(NativeApp.authorization(["scope": scope])), "invalid_scope",
                    fixture: fixture)
            }
            try expectAuthorizationError(
                try await browser.authorize(NativeApp.authorization(["scope": nil])), "invalid_scope",
                fixture: fixture)
            try expectAuthorizationError(
                try await browser.authorize(NativeApp.authorization(["audience": "https://unknown.example"])),
                "invalid_request", fixture: fixture)
            // The default API's scopes without audience; another API's with it.
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["scope": "openid read:items"])))
            try expectLoginPage(
                try await browser.authorize(
                    NativeApp.authorization([
                        "scope": "openid pay:invoices", "audience": "https://billing.example",
                    ])))
            try expectAuthorizationError(
                try await browser.authorize(
                    NativeApp.authorization([
                        "scope": "openid read:items", "audience": "https://billing.example",
                    ])),
                "invalid_scope", fixture: fixture)
            // Without openid the request is plain OAuth 2.0, and still valid.
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["scope": "offline_access"])))
        }
    }

    /// Unknown prompt values, and none with another value, are invalid_request; select_account means login.
    @Test("prompt values", arguments: Deployment.allCases)
    func promptValues(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            for prompt in ["bogus", "none login", "none consent", "login bogus", "create"] {
                try expectAuthorizationError(
                    try await browser.authorize(NativeApp.authorization(["prompt": prompt])),
                    "invalid_request",
                    fixture: fixture)
            }
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["prompt": "select_account"])))
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["prompt": "login consent"])))
        }
    }

    /// prompt=none: login_required without a session, consent_required without consent, a code with both.
    @Test("prompt=none", arguments: Deployment.allCases)
    func promptNone(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            try expectAuthorizationError(
                try await browser.authorize(NativeApp.authorization(["prompt": "none"])), "login_required",
                fixture: fixture)
            _ = try redirectParameters(
                try await browser.signIn(NativeApp.authorization(["scope": "openid profile"])))
            try expectAuthorizationError(
                try await browser.authorize(
                    NativeApp.authorization(["prompt": "none", "scope": "openid email"])),
                "consent_required", fixture: fixture)
            let silent = try redirectParameters(
                try await browser.authorize(
                    NativeApp.authorization(["prompt": "none", "scope": "openid profile", "state": "silent"]))
            )
            #expect(silent["code"] != nil)
            #expect(silent["state"] == "silent")
            #expect(silent["iss"] == fixture.baseURL)
            // A session older than max_age is no session for prompt=none.
            fixture.clock.advance(by: 120)
            try expectAuthorizationError(
                try await browser.authorize(
                    NativeApp.authorization(["prompt": "none", "scope": "openid profile", "max_age": "60"])),
                "login_required", fixture: fixture)
        }
    }

    /// max_age must be a non-negative integer number of seconds.
    @Test("max_age syntax", arguments: Deployment.allCases)
    func maxAgeSyntax(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            for value in ["soon", "-1", "+5", "1.5", " 5", "99999999999999999999", "0x10"] {
                try expectAuthorizationError(
                    try await browser.authorize(NativeApp.authorization(["max_age": value])),
                    "invalid_request",
                    fixture: fixture)
            }
            try expectLoginPage(try await browser.authorize(NativeApp.authorization(["max_age": "3600"])))
        }
    }

    /// Request objects get their own errors; a response_mode other than query is invalid_request.
    @Test("request objects and response_mode", arguments: Deployment.allCases)
    func requestObjects(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            try expectAuthorizationError(
                try await browser.authorize(NativeApp.authorization(["request": "eyJhbGciOiJub25lIn0.e30."])),
                "request_not_supported", fixture: fixture)
            try expectAuthorizationError(
                try await browser.authorize(
                    NativeApp.authorization(["request_uri": "https://app.example/r"])),
                "request_uri_not_supported", fixture: fixture)
            for mode in ["fragment", "form_post"] {
                try expectAuthorizationError(
                    try await browser.authorize(NativeApp.authorization(["response_mode": mode])),
                    "invalid_request",
                    fixture: fixture)
            }
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["response_mode": "query"])))
        }
    }

    /// dpop_jkt must be a JWK SHA-256 thumbprint (RFC 9449 §10).
    @Test("dpop_jkt syntax", arguments: Deployment.allCases)
    func dpopKeyThumbprint(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            for value in ["abc", NativeApp.codeChallenge + "x", "not a thumbprint at all, no, not at all!!!"]
            {
                try expectAuthorizationError(
                    try await browser.authorize(NativeApp.authorization(["dpop_jkt": value])),
                    "invalid_request",
                    fixture: fixture)
            }
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["dpop_jkt": NativeApp.codeChallenge])))
        }
    }

    /// Overlong values are refused rather than stored.
    @Test("overlong values", arguments: Deployment.allCases)
    func overlongValues(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let long = String(repeating: "n", count: 4097)
            try expectAuthorizationError(
                try await browser.authorize(NativeApp.authorization(["nonce": long])), "invalid_request",
                fixture: fixture)
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["nonce": String(long.dropLast())])))
        }
    }

    /// error_description is printable ASCII without quotes or backslashes (RFC 6749 §4.1.2.1).
    @Test("error_description characters", arguments: Deployment.allCases)
    func errorDescriptionCharacters(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let response = try await browser.authorize(NativeApp.authorization(["prompt": "caf\u{E9}\"\\§"]))
            try expectAuthorizationError(response, "invalid_request", fixture: fixture)
            let description = try #require(try redirectParameters(response)["error_description"])
            #expect(
                description.unicodeScalars.allSatisfy {
                    (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\"
                }, "\(description)")
        }
    }

    /// Whatever a client sends is escaped on the pages: login_hint, client names, state, control characters.
    @Test("HTML escaping", arguments: Deployment.allCases)
    func escaping(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let hint = "\"><script>alert(1)</script>&amp;'\u{1}x"
            let response = try await browser.authorize(NativeApp.authorization(["login_hint": hint]))
            let form = try expectLoginPage(response)
            #expect(form.input("username")?.value == "\"><script>alert(1)</script>&amp;'\u{FFFD}x")
            #expect(form.inputs.count == 4, "no injected inputs")
            let page = try HTMLPage(response)
            #expect(!page.source.contains("<script"))

            let unknown = try await browser.authorize(
                NativeApp.authorization(["client_id": "<script>x</script>"]))
            let errorPage = try expectErrorPage(unknown)
            #expect(!errorPage.source.contains("<script"))

            let evilName = "<img src=x onerror=alert(1)> & \"Co\""
            _ = try await fixture.postJSON(
                "/_admin/clients",
                [
                    "client_id": "evil", "client_name": .string(evilName),
                    "redirect_uris": ["com.example.evil://cb"],
                ])
            let named = try await browser.authorize(
                NativeApp.authorization(["client_id": "evil", "redirect_uri": "com.example.evil://cb"]))
            try expectLoginPage(named)
            let namedPage = try HTMLPage(named)
            #expect(namedPage.strongTexts.contains(evilName))
            #expect(!namedPage.source.contains("<img"))

            // A state full of markup goes back byte for byte, and no page shows it.
            let state = "<script>alert('state')</script>&x=1"
            let consent = try await browser.submit(
                form, ["username": Alice.email, "password": Alice.password])
            #expect(!(try HTMLPage(consent).source.contains("<script")))
            let redirect = try await browser.signIn(NativeApp.authorization(["state": state]))
            #expect(try redirectParameters(redirect)["state"] == state)
        }
    }
}
