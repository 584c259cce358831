import Clocks
import Cryptography
import Foundation
import FoundationXML
import HTTPCore
import JSON
import TestSupport
import Testing

@testable import Issuer

extension Tenant {
    /// The default tenant with `pages: javascript`.
    static let scripted: Tenant = {
        var tenant = Tenant.default
        tenant.pageStyle = .javascript
        return tenant
    }()
}

/// A `javascript` page as a client that does not run scripts reads it: no form, the data in
/// `#page-data`, and the script with its nonce.
struct ScriptedPage: Sendable {
    let page: HTMLPage
    /// The JSON of `<script type="application/json" id="page-data">`.
    let data: JSONValue
    /// The `nonce` of the executable script.
    let scriptNonce: String
    /// The nonce the `Content-Security-Policy` allows.
    let policyNonce: String?

    init(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // Required, not expected: FoundationXML crashes the test process on what is not XML.
        try #require(response.status == 200, sourceLocation: sourceLocation)
        try #require(response.mediaType == "text/html", sourceLocation: sourceLocation)
        // A strict XML parse: nothing in the data or the script broke the markup.
        page = try HTMLPage(response)
        let document = try XMLDocument(data: Data(response.body), options: [.nodeLoadExternalEntitiesNever])
        let dataNodes = try document.nodes(forXPath: "//script[@id='page-data']")
        #expect(dataNodes.count == 1, sourceLocation: sourceLocation)
        data = try JSONValue.parse(Array((dataNodes.first?.stringValue ?? "").utf8))
        let scripts = try document.nodes(forXPath: "//script[@nonce]").compactMap { $0 as? XMLElement }
        #expect(scripts.count == 1, sourceLocation: sourceLocation)
        #expect(try document.nodes(forXPath: "//script").count == 2, "the data and one script")
        scriptNonce = scripts.first?.attribute(forName: "nonce")?.stringValue ?? ""
        let policy = response.headers["Content-Security-Policy"] ?? ""
        policyNonce =
            policy.split(separator: ";").lazy.compactMap { directive -> String? in
                let words = directive.split(separator: " ")
                guard words.first == "script-src", words.count == 2, words[1].hasPrefix("'nonce-") else {
                    return nil
                }
                return String(words[1].dropFirst(7).dropLast())
            }.first
    }

    func string(_ key: String) -> String? { data[key]?.stringValue }
}

extension Browser {
    /// What the login page's script sends when "Sign in" is pressed: the form's fields, posted
    /// with `fetch` and `Accept: application/json`.
    mutating func fetchLogin(_ login: ScriptedPage, username: String, password: String) async throws
        -> HTTPResponse
    {
        let fields: FormParameters = [
            "transaction": login.string("transaction") ?? "", "csrf": login.string("csrf") ?? "",
            "username": username, "password": password,
        ]
        return try await send(
            .form(
                url: fixture.baseURL + (login.string("action") ?? ""), parameters: fields,
                headers: ["Accept": "application/json"]))
    }

    /// The consent form as its script renders it, with the hidden `action` as given (`approve`
    /// unless Refuse's handler changed it).
    mutating func submitConsent(_ consent: ScriptedPage, action: String = "approve") async throws
        -> HTTPResponse
    {
        try await post(
            consent.string("action") ?? "",
            [
                "transaction": consent.string("transaction") ?? "", "csrf": consent.string("csrf") ?? "",
                "action": action,
            ])
    }

    /// Signs in through a `javascript` tenant's pages as their scripts would, approving consent:
    /// returns the final redirect.
    mutating func signInWithScripts(_ parameters: FormParameters = NativeApp.authorization()) async throws
        -> HTTPResponse
    {
        let login = try ScriptedPage(try await authorize(parameters))
        let answer = try await fetchLogin(login, username: Alice.email, password: Alice.password)
        let location = try #require(try answer.jsonBody()["location"]?.stringValue)
        guard location.hasPrefix(fixture.baseURL + "/u/consent?") else { return answer }
        let consent = try ScriptedPage(try await send(HTTPRequest(url: location)))
        return try await submitConsent(consent)
    }
}

/// `pages: javascript`: login, consent and logout pages that are an empty shell and a script,
/// the JSON answers of the login endpoint, the consent a client without JavaScript gives, and
/// the logout question. `pages: html` stays as it was.
@Suite("Pages that need JavaScript")
struct ScriptedPagesTests {
    static let postLogoutRedirectURI = "com.example.app://auth/logout"
    static let expiredMessage = "This sign-in page has expired or was not opened from the app."

    /// The login page has no form and no input, only data and a script whose nonce the CSP allows.
    @Test("the login page is a shell and a script", arguments: Deployment.allCases)
    func loginShell(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: .scripted) { fixture in
            var browser = Browser(fixture)
            let hint = "</script><script>alert(1)</script>&amp;\u{2028}]]>"
            let response = try await browser.authorize(NativeApp.authorization(["login_hint": hint]))
            let login = try ScriptedPage(response)
            let source = login.page.source
            #expect(login.page.forms.isEmpty)
            #expect(!source.contains("<form") && !source.contains("<input") && !source.contains("<button"))
            #expect(source.contains("<div id=\"app\">Loading…</div>"))
            #expect(!source.contains("</script><script>alert"), "the hint stays data")
            #expect(login.string("username") == hint)
            #expect(login.string("action") == "/u/login")
            #expect(login.string("clientName") == "Example App")
            #expect(login.string("transaction")?.utf8.count == 43)
            #expect(login.string("csrf")?.utf8.count == 43)
            #expect(login.data["error"] == .null)
            #expect(login.scriptNonce.utf8.count == 22)
            #expect(login.policyNonce == login.scriptNonce)
            #expect(
                response.headers["Content-Security-Policy"]
                    == "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(login.scriptNonce)'; "
                    + "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'")
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(response.headers["X-Frame-Options"] == "DENY")
            // What the script renders, by the names a browser engine looks for.
            let script = try #require(source.split(separator: "<script nonce=").last)
            for fragment in [
                "autocomplete: \"username\"", "autocomplete: \"current-password\"", "\"Next\"", "\"Sign in\"",
                "role: \"alert\"", "setTimeout(", "\"Accept\": \"application/json\"",
                "window.location.assign(",
            ] {
                #expect(script.contains(fragment), "\(fragment)")
            }
            // Each page gets its own nonce.
            let again = try ScriptedPage(try await browser.authorize())
            #expect(again.scriptNonce != login.scriptNonce)
            #expect(again.policyNonce == again.scriptNonce)
        }
    }

    /// A seeded issuer serves the same scripted page, nonce included: the nonce is drawn from its random source.
    @Test("seeded runs serve the same page")
    func reproducibleNonce() async throws {
        var pages: [HTTPResponse] = []
        for _ in 0..<2 {
            let issuer = try Issuer(
                baseURL: "http://issuer.test", tenant: .scripted, clock: ManualWallClock(now: testEpoch),
                random: SeededRandom(seed: 9))
            let url = "http://issuer.test/authorize?" + FormURLEncoding.encode(NativeApp.authorization())
            pages.append(await issuer.respond(to: HTTPRequest(url: url)))
        }
        #expect(pages[0].body == pages[1].body)
        #expect(pages[0].headers["Content-Security-Policy"] == pages[1].headers["Content-Security-Policy"])
        #expect(try ScriptedPage(pages[0]).policyNonce != nil)
    }

    /// A fetch-style login answers JSON: {"error"} without a cookie for a wrong password, {"location"} with the cookie for the right one.
    @Test("login by fetch answers JSON", arguments: Deployment.allCases)
    func loginByFetch(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: .scripted) { fixture in
            var browser = Browser(fixture)
            let login = try ScriptedPage(try await browser.authorize())

            let wrong = try await browser.fetchLogin(login, username: Alice.email, password: "bob-password")
            #expect(wrong.status == 400)
            #expect(wrong.mediaType == "application/json")
            #expect(try wrong.jsonBody() == ["error": "Wrong email or password."])
            #expect(wrong.headers["Set-Cookie"] == nil)
            #expect(wrong.headers["Cache-Control"] == "no-store")
            #expect(wrong.headers["Pragma"] == "no-cache")
            #expect(browser.sessionCookie == nil)

            // The same transaction takes the right password.
            let right = try await browser.fetchLogin(login, username: Alice.email, password: Alice.password)
            #expect(right.status == 200)
            #expect(right.mediaType == "application/json")
            #expect(right.headers["Cache-Control"] == "no-store")
            #expect(right.headers["Pragma"] == "no-cache")
            let cookie = try #require(browser.sessionCookie)
            #expect(
                right.headers.values(for: "Set-Cookie") == [
                    "signinsim_session=\(cookie); Path=/; HttpOnly; SameSite=Lax"
                ])
            let transaction = try #require(login.string("transaction"))
            let location = fixture.baseURL + "/u/consent?transaction=" + transaction
            #expect(try right.jsonBody() == ["location": .string(location)])

            // The consent page the script goes to, for this browser only.
            let consent = try ScriptedPage(try await browser.send(HTTPRequest(url: location)))
            #expect(consent.page.forms.isEmpty)
            #expect(consent.policyNonce == consent.scriptNonce)
            #expect(consent.string("transaction") == transaction)
            #expect(consent.string("csrf") != login.string("csrf"), "a new stage, a new token")
            #expect(consent.data["scopes"]?.arrayValue?.count == 4)
            var other = Browser(fixture)
            try expectErrorPage(try await other.send(HTTPRequest(url: location)))
            _ = try redirectParameters(try await browser.submitConsent(consent))

            // Consent given, the next login's location is the client's callback.
            let next = try ScriptedPage(
                try await browser.authorize(NativeApp.authorization(["prompt": "login", "state": "s2"])))
            let answer = try await browser.fetchLogin(next, username: Alice.email, password: Alice.password)
            let callback = try #require(try answer.jsonBody()["location"]?.stringValue)
            let query = try FormURLEncoding.decode(URLParts.query(of: callback) ?? "").uniqueDictionary
            #expect(callback.hasPrefix(NativeApp.redirectURI + "?"))
            #expect(query?["code"] != nil)
            #expect(query?["state"] == "s2")
            #expect(query?["iss"] == fixture.baseURL)
        }
    }

    /// Failed checks answer JSON errors with the status of the page flow's error page; a form post without Accept gets pages.
    @Test("login errors as JSON", arguments: Deployment.allCases)
    func loginErrors(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: .scripted) { fixture in
            var browser = Browser(fixture)
            let login = try ScriptedPage(try await browser.authorize())
            let json: HTTPHeaders = ["Accept": "text/html, application/json;q=0.9"]
            var tampered: FormParameters = [
                "transaction": login.string("transaction") ?? "", "csrf": "forged", "username": Alice.email,
                "password": Alice.password,
            ]
            for request in [
                HTTPRequest.form(url: fixture.baseURL + "/u/login", parameters: tampered, headers: json),
                HTTPRequest.json(url: fixture.baseURL + "/u/login", body: ["csrf": "x"], headers: json),
            ] {
                let response = try await browser.send(request)
                #expect(response.status == 400)
                #expect(try response.jsonBody() == ["error": .string(Self.expiredMessage)])
                #expect(response.headers["Cache-Control"] == "no-store")
            }
            // Without Accept: application/json, the same checks answer pages, as on html tenants.
            try expectErrorPage(try await browser.post("/u/login", tampered))
            tampered["csrf"] = login.string("csrf")
            tampered["password"] = "wrong"
            let page = try ScriptedPage(try await browser.post("/u/login", tampered))
            #expect(page.string("username") == Alice.email)
            #expect(page.string("error") == "Wrong email or password.")
            #expect(page.page.errors.isEmpty, "the error is the script's to show")
            #expect(browser.sessionCookie == nil)
        }
    }

    /// The consent form as served says approve; only Refuse's script says deny.
    @Test("consent as served approves", arguments: Deployment.allCases)
    func consentAsServed(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: .scripted) { fixture in
            // Refused first: a refusal grants nothing, so the second login is asked again.
            for (action, expected) in [("deny", "error"), ("approve", "code")] {
                var browser = Browser(fixture)
                let login = try ScriptedPage(try await browser.authorize())
                let answer = try await browser.fetchLogin(
                    login, username: Alice.email, password: Alice.password)
                let location = try #require(try answer.jsonBody()["location"]?.stringValue)
                let consent = try ScriptedPage(try await browser.send(HTTPRequest(url: location)))
                #expect(consent.page.forms.isEmpty)
                let script = try #require(consent.page.source.split(separator: "<script nonce=").last)
                #expect(script.contains("name: \"action\", value: \"approve\""))
                #expect(script.contains("decision.value = \"deny\""))
                let response = try await browser.submitConsent(consent, action: action)
                if expected == "code" {
                    #expect(try redirectParameters(response)["code"] != nil)
                } else {
                    try expectAuthorizationError(response, "access_denied", fixture: fixture)
                }
            }
        }
    }

    /// A logout that is not confirmed ends nothing; POST with logout=yes ends the session as before.
    @Test("logout asks first", arguments: Deployment.allCases)
    func logoutAsks(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: .scripted) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signInWithScripts())
            let cookie = try #require(browser.sessionCookie)
            let parameters: FormParameters = [
                "client_id": NativeApp.clientID, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                "state": "bye <&>",
            ]
            var unconfirmed = [
                HTTPRequest(url: fixture.baseURL + LogoutTests.logoutQuery(parameters)),
                HTTPRequest(url: fixture.baseURL + LogoutTests.logoutQuery(parameters) + "&logout=yes"),
                HTTPRequest.form(url: fixture.baseURL + "/oidc/logout", parameters: parameters),
            ]
            var wrongAnswer = parameters
            wrongAnswer.append("logout", "no")
            unconfirmed.append(.form(url: fixture.baseURL + "/oidc/logout", parameters: wrongAnswer))
            for request in unconfirmed {
                let response = try await browser.send(request)
                let question = try ScriptedPage(response)
                #expect(response.headers["Set-Cookie"] == nil)
                #expect(response.headers["Location"] == nil)
                #expect(question.page.forms.isEmpty)
                #expect(question.policyNonce == question.scriptNonce)
                #expect(question.string("action") == "/oidc/logout")
                #expect(
                    question.data["parameters"]
                        == .array(
                            parameters.pairs.map { ["name": .string($0.name), "value": .string($0.value)] }))
                #expect(
                    question.string("declineLocation")
                        == Self.postLogoutRedirectURI + "?" + FormURLEncoding.encode(["state": "bye <&>"]))
                #expect(browser.sessionCookie == cookie)
                // The session still rides: the next authorization is answered at once.
                _ = try redirectParameters(try await browser.authorize())
            }

            // Yes: the question's form, posted with logout=yes.
            var confirmed = parameters
            confirmed.append("logout", "yes")
            let response = try await browser.post("/oidc/logout", confirmed)
            #expect(try redirectParameters(response, to: Self.postLogoutRedirectURI) == ["state": "bye <&>"])
            #expect(
                response.headers["Set-Cookie"]
                    == "signinsim_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
            #expect(browser.sessionCookie == nil)
            browser.setSessionCookie(cookie)
            _ = try ScriptedPage(try await browser.authorize())
            #expect(fixture.issuer.state.withLock { $0.sessions.isEmpty })
        }
    }

    /// "No" goes to the post-logout redirect URI only when the logout would; the question takes no fault.
    @Test("where No goes", arguments: Deployment.allCases)
    func declineLocation(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: .scripted) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .logoutWithoutState, count: 1))
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signInWithScripts())
            let app = NativeApp.clientID
            let cases: [(FormParameters, String?)] = [
                (["client_id": app, "post_logout_redirect_uri": "com.example.app://elsewhere"], nil),
                (["post_logout_redirect_uri": Self.postLogoutRedirectURI], nil),
                (FormParameters(), nil),
                (
                    ["client_id": app, "post_logout_redirect_uri": Self.postLogoutRedirectURI],
                    Self.postLogoutRedirectURI
                ),
                (
                    [
                        "client_id": app, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                        "state": "s1",
                    ],
                    Self.postLogoutRedirectURI + "?state=s1"
                ),
            ]
            for (parameters, expected) in cases {
                let question = try ScriptedPage(try await browser.get(LogoutTests.logoutQuery(parameters)))
                #expect(question.string("declineLocation") == expected, "\(parameters)")
                #expect(question.data["declineLocation"] == (expected.map(JSONValue.string) ?? .null))
            }
            // The fault was left for the sign-out itself.
            var confirmed: FormParameters = [
                "client_id": NativeApp.clientID, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                "state": "s1",
            ]
            confirmed.append("logout", "yes")
            let response = try await browser.post("/oidc/logout", confirmed)
            #expect(response.headers["Location"] == Self.postLogoutRedirectURI)
        }
    }

    /// pages: html serves today's pages byte for byte, answers pages when JSON is asked for, and logs out at once.
    @Test("pages: html is unchanged", arguments: Deployment.allCases)
    func htmlUnchanged(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let response = try await browser.authorize()
            let form = try expectLoginPage(response)
            let transaction = try #require(form.hiddenFields["transaction"])
            let csrf = try #require(form.hiddenFields["csrf"])
            #expect(response.bodyText == Self.htmlLoginPage(transaction: transaction, csrf: csrf))
            #expect(
                response.headers["Content-Security-Policy"]
                    == "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"
            )
            let answer = try await browser.send(
                .form(
                    url: fixture.baseURL + "/u/login",
                    parameters: form.submission(["username": Alice.email, "password": Alice.password]),
                    headers: ["Accept": "application/json"]))
            let consent = try expectConsentPage(answer)
            _ = try redirectParameters(try await browser.submit(consent, pressing: "approve"))
            let logout = try await browser.get("/oidc/logout")
            #expect(try HTMLPage(logout).title?.hasPrefix("Signed out") == true)
            #expect(browser.sessionCookie == nil)
            try expectLoginPage(try await browser.authorize())
        }
    }

    /// Page data stays data: no character of any value can end the element or break the XML, and every value parses back.
    @Test("page data cannot break out")
    func pageDataEscaping() throws {
        let nasty = "</script><!-- & \"quote\" ' ]]> \u{2028}\u{2029} \u{7F}\u{85} \u{FFFE} \u{1FFFF} é 🙂"
        let value: JSONValue = ["text": .string(nasty), "list": [.string("<b>&amp;</b>")]]
        let text = ScriptedLoginPages.scriptData(value)
        for forbidden in ["<", ">", "&", "\u{2028}", "\u{2029}", "\u{FFFE}", "\u{1FFFF}", "\u{85}"] {
            #expect(!text.contains(forbidden), "\(forbidden.unicodeScalars.first?.value ?? 0)")
        }
        #expect(text.contains("\\u003c/script\\u003e"))
        #expect(text.contains("\\ud83f\\udfff"), "a surrogate pair beyond the BMP")
        #expect(try JSONValue.parse(Array(text.utf8)) == value)
        // Neither the scripts: a "<" or "&" would break the XML parse of every page.
        for script in [
            ScriptedLoginPages.prelude, ScriptedLoginPages.loginScript, ScriptedLoginPages.consentScript,
            ScriptedLoginPages.logoutScript,
        ] {
            #expect(!script.contains("<") && !script.contains("&") && !script.contains("]]>"))
        }
    }

    /// Today's login page, as the default tenant serves it.
    static func htmlLoginPage(transaction: String, csrf: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <meta name="robots" content="noindex, nofollow"/>
        <title>Sign in - SignInSim</title>
        <style>body{font-family:system-ui,sans-serif;margin:0;background:#f4f4f6;color:#1c1c1e}\
        main{max-width:24rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:.75rem}\
        label,input,button{display:block;width:100%;box-sizing:border-box}\
        input{margin:.25rem 0 1rem;padding:.6rem;font-size:1rem}\
        button{margin-top:.5rem;padding:.7rem;font-size:1rem}.error{color:#b00020}</style>
        </head>
        <body>
        <main>
        <h1>Sign in</h1>
        <p class="client">to continue to <strong>Example App</strong></p>
        <form method="post" action="/u/login">
        <input type="hidden" name="transaction" value="\(transaction)"/>
        <input type="hidden" name="csrf" value="\(csrf)"/>
        <label for="username">Email</label>
        <input id="username" type="text" inputmode="email" name="username" value="" autocomplete="username" \
        required="required"/>
        <label for="password">Password</label>
        <input id="password" type="password" name="password" autocomplete="current-password" \
        required="required"/>
        <button type="submit">Continue</button>
        </form>
        </main>
        </body>
        </html>

        """
    }
}
