import Clocks
import Cryptography
import HTTPCore
import Issuer
import TestSupport
import Testing

@Suite("Login form and the SSO session")
struct LoginTests {
    /// A wrong password re-renders the login page with an error for the same transaction; the right one then works.
    @Test("wrong password", arguments: Deployment.allCases)
    func wrongPassword(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let retry = try await browser.submit(
                login, ["username": Alice.email, "password": "bob-password"])
            let again = try expectLoginPage(retry)
            #expect(retry.headers["Set-Cookie"] == nil)
            #expect(try HTMLPage(retry).errors == ["Wrong email or password."])
            #expect(again.hiddenFields == login.hiddenFields, "the same transaction")
            #expect(again.input("username")?.value == Alice.email)
            #expect(again.input("password")?.value == "")
            #expect(browser.sessionCookie == nil)
            try expectConsentPage(
                try await browser.submit(again, ["username": Alice.email, "password": Alice.password]))
        }
    }

    /// An unknown email gets the wrong-password answer; emails match case-insensitively.
    @Test("unknown user and email case", arguments: Deployment.allCases)
    func unknownUser(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            for (email, password) in [
                ("mallory@example.com", "alice-password"), ("", ""), (Alice.email, ""),
                (Alice.email, "ALICE-PASSWORD"),
            ] {
                let response = try await browser.submit(login, ["username": email, "password": password])
                try expectLoginPage(response)
                #expect(try HTMLPage(response).errors == ["Wrong email or password."])
            }
            try expectConsentPage(
                try await browser.submit(
                    login, ["username": "Alice@Example.COM", "password": Alice.password]))
        }
    }

    /// A tampered CSRF token or transaction, a malformed form, or an expired transaction is a 400 page.
    @Test("transaction and CSRF checks", arguments: Deployment.allCases)
    func transactionChecks(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let credentials = ["username": Alice.email, "password": Alice.password]
            let csrf = try #require(login.hiddenFields["csrf"])
            let transaction = try #require(login.hiddenFields["transaction"])
            for tampered in [
                ["csrf": String(csrf.dropLast()) + (csrf.hasSuffix("A") ? "B" : "A")],
                ["csrf": ""],
                ["transaction": String(transaction.dropLast()) + (transaction.hasSuffix("A") ? "B" : "A")],
                ["transaction": ""],
            ] {
                try expectErrorPage(try await browser.submit(login, credentials.merging(tampered) { $1 }))
            }
            var missing = login.submission(credentials)
            missing["csrf"] = nil
            try expectErrorPage(try await browser.post("/u/login", missing))
            var repeated = login.submission(credentials)
            repeated.append("username", "bob@example.com")
            try expectErrorPage(try await browser.post("/u/login", repeated))
            let json = HTTPRequest.json(
                url: fixture.baseURL + "/u/login",
                body: .object(login.submission(credentials).uniqueDictionary!.mapValues { .string($0) }))
            try expectErrorPage(try await browser.send(json))
            // A login form posted to the consent endpoint is at the wrong stage.
            try expectErrorPage(
                try await browser.submit(HTMLForm.retargeted(login, to: "/u/consent"), pressing: nil))

            // The transaction lives 600 s.
            fixture.clock.advance(by: 601)
            try expectErrorPage(try await browser.submit(login, credentials))
            #expect(browser.sessionCookie == nil)
        }
    }

    /// A login form that succeeded cannot be submitted again, nor the consent form's transaction logged into.
    @Test("login form is single use", arguments: Deployment.allCases)
    func loginFormSingleUse(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let credentials = ["username": Alice.email, "password": Alice.password]
            let consent = try expectConsentPage(try await browser.submit(login, credentials))
            try expectErrorPage(try await browser.submit(login, credentials))
            var consentAsLogin = consent.submission()
            consentAsLogin.append("username", Alice.email)
            consentAsLogin.append("password", Alice.password)
            try expectErrorPage(try await browser.post("/u/login", consentAsLogin))
            _ = try redirectParameters(try await browser.submit(consent, pressing: "approve"))
        }
    }

    /// The session cookie is 32 random bytes, HttpOnly, SameSite=Lax, Path=/, and not Secure over http.
    @Test("session cookie attributes", arguments: Deployment.allCases)
    func cookieAttributes(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let response = try await browser.submit(
                login, ["username": Alice.email, "password": Alice.password])
            let setCookies = response.headers.values(for: "Set-Cookie")
            #expect(setCookies.count == 1)
            let value = try #require(browser.sessionCookie)
            #expect(value.utf8.count == 43)
            #expect(setCookies.first == "signinsim_session=\(value); Path=/; HttpOnly; SameSite=Lax")
        }
    }

    /// An https issuer marks the session cookie Secure (in process only: loopback has no TLS).
    @Test("Secure cookie over https")
    func secureCookie() async throws {
        let issuer = try Issuer(
            baseURL: "https://issuer.test/", clock: ManualWallClock(now: testEpoch),
            random: SeededRandom(seed: 3))
        let authorize = "https://issuer.test/authorize?" + FormURLEncoding.encode(NativeApp.authorization())
        let login = try expectLoginPage(await issuer.respond(to: HTTPRequest(url: authorize)))
        let response = await issuer.respond(
            to: .form(
                url: "https://issuer.test/u/login",
                parameters: login.submission(["username": Alice.email, "password": Alice.password])))
        let setCookie = try #require(response.headers["Set-Cookie"])
        #expect(setCookie.hasSuffix("; Path=/; Secure; HttpOnly; SameSite=Lax"))
        let logout = await issuer.respond(to: HTTPRequest(url: "https://issuer.test/oidc/logout"))
        #expect(
            logout.headers["Set-Cookie"]
                == "signinsim_session=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax")
    }

    /// A second authorization in the same browser skips login and the consent already given (SSO).
    @Test("SSO skips login", arguments: Deployment.allCases)
    func singleSignOn(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let first = try redirectParameters(try await browser.signIn())
            let cookie = browser.sessionCookie
            fixture.clock.advance(by: 30)
            let second = try redirectParameters(
                try await browser.authorize(NativeApp.authorization(["state": "second"])))
            #expect(second["state"] == "second")
            #expect(second["code"] != nil)
            #expect(second["code"] != first["code"])
            #expect(browser.sessionCookie == cookie, "the session goes on")

            // Another browser has no session.
            var other = Browser(fixture)
            try expectLoginPage(try await other.authorize())
        }
    }

    /// A session cookie that names no live session is ignored, and so is an expired session.
    @Test("dead session cookies are ignored", arguments: Deployment.allCases)
    func deadSessionCookie(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var stranger = Browser(fixture)
            stranger.setSessionCookie("bm90LWEtc2Vzc2lvbi1hdC1hbGwtbm90LWEtc2Vzc2lvbg")
            try expectLoginPage(try await stranger.authorize())

            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            // Sessions last 7 days.
            fixture.clock.advance(by: 7 * 86400 - 1)
            _ = try redirectParameters(try await browser.authorize())
            fixture.clock.advance(by: 1)
            try expectLoginPage(try await browser.authorize())
        }
    }

    /// prompt=login and max_age=0 show the form despite a session; the new login replaces the old session.
    @Test("prompt=login replaces the session", arguments: Deployment.allCases)
    func promptLogin(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            let oldCookie = try #require(browser.sessionCookie)
            try expectLoginPage(try await browser.authorize(NativeApp.authorization(["max_age": "0"])))
            try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["prompt": "select_account"])))
            let login = try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["prompt": "login"])))
            // Alice consented before, so the login leads straight to the code, with a new session.
            _ = try redirectParameters(
                try await browser.submit(login, ["username": Alice.email, "password": Alice.password]))
            let newCookie = try #require(browser.sessionCookie)
            #expect(newCookie != oldCookie)
            _ = try redirectParameters(try await browser.authorize())

            // The old cookie opens nothing any more.
            browser.setSessionCookie(oldCookie)
            try expectLoginPage(try await browser.authorize())
        }
    }

    /// max_age: a session older than max_age must sign in again; a recent enough one goes on.
    @Test("max_age against the session's auth time", arguments: Deployment.allCases)
    func maxAge(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            fixture.clock.advance(by: 100)
            _ = try redirectParameters(
                try await browser.authorize(NativeApp.authorization(["max_age": "100"])))
            let login = try expectLoginPage(
                try await browser.authorize(NativeApp.authorization(["max_age": "99"])))
            // After the new login, the same max_age is satisfied.
            _ = try redirectParameters(
                try await browser.submit(login, ["username": Alice.email, "password": Alice.password]))
            _ = try redirectParameters(
                try await browser.authorize(NativeApp.authorization(["max_age": "99"])))
        }
    }
}

extension HTMLForm {
    /// The same form posted somewhere else (for tests of what an endpoint refuses).
    static func retargeted(_ form: HTMLForm, to action: String) -> HTMLForm {
        var copy = form
        copy.action = action
        return copy
    }
}
