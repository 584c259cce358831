import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing
import WebAuthSession
import WorldVocabulary

/// A small site that plays an authorization server badly or oddly, one route per case.
private func siteRouter() -> Router {
    var router = Router()
    addOddAnswers(to: &router)
    addLoginPages(to: &router)
    addCookiePages(to: &router)
    addEndSessionPages(to: &router)
    router.add(.get, "/signed-out") { _ in
        .html("<html><title>Signed out</title><body>You are signed out.</body></html>")
    }
    return router
}

/// Loops, foreign schemes, answers that are not pages, errors, a huge page, a redirect
/// without a Location, and a consent form that only ever leads to itself.
private func addOddAnswers(to router: inout Router) {
    router.add(.get, "/loop") { _ in .redirect(to: "/loop") }
    router.add(.get, "/foreign") { _ in .redirect(to: "itms-apps://apps.apple.com/app/id1") }
    router.add(.get, "/json") { _ in .json(["error": "invalid_request"]) }
    router.add(.get, "/plain") { _ in .html("<html><title>Welcome</title><body>Hello</body></html>") }
    router.add(.get, "/boom") { _ in
        .html("<html><title>Oops</title><p class=\"error\">Database is down</p></html>", status: 500)
    }
    router.add(.get, "/teapot") { _ in .text("no coffee here", status: 418) }
    router.add(.get, "/big") { _ in
        .html("<html><body>" + String(repeating: "x", count: 3 << 20) + "</body></html>")
    }
    router.add(.get, "/no-location") { _ in HTTPResponse(status: 302) }
    // A consent form that only ever leads to itself.
    let again: HTTPHandler = { _ in
        .html("<form method=post action=/again><button name=action value=approve>Allow</button></form>")
    }
    router.add(.get, "/again", again)
    router.add(.post, "/again", again)
}

/// Relative redirects, a 303, then login forms with other field names.
private func addLoginPages(to router: inout Router) {
    // Relative redirects, a 303, then a login form with other field names.
    router.add(.get, "/start") { _ in .redirect(to: "step/one?x=1") }
    router.add(.get, "/step/one") { _ in .redirect(to: "../login", status: 303) }
    router.add(.get, "/login") { _ in
        .html(
            """
            <html><title>Log in</title><form method="post" action="/session">
            <input type="hidden" name="tx" value="t-42"><input name="login">
            <input type="password" name="pass">
            <input type="text" name="otp"><input type="submit" value="Log in"></form></html>
            """)
    }
    router.add(.get, "/pin") { _ in
        .html(
            """
            <html><title>Log in</title><form method="post" action="/session">
            <input name="login"><input type="password" name="pass" autocomplete="current-password">
            <input type="password" name="pin"><button>Log in</button></form></html>
            """)
    }
    router.add(.post, "/session") { request in
        let form = (try? request.formParameters()) ?? FormParameters()
        guard form["tx"] == "t-42", form["login"] == "alice", form["pass"] == "secret",
            form["otp"] == "123456"
        else {
            return .html(
                """
                <html><title>Log in</title><div role="alert">Bad login for \(form["login"] ?? "")</div>
                <form method="post" action="/session"><input type="hidden" name="tx" value="t-42">
                <input name="login"><input type="password" name="pass"><input name="otp">
                <button>Log in</button>
                </form></html>
                """)
        }
        return .redirect(to: "com.Example.App://auth/callback?code=a%20b&state=s+1", status: 302)
    }
}

/// Cookies with odd attributes, then a check that they come back.
private func addCookiePages(to router: inout Router) {
    router.add(.get, "/cookies") { _ in
        var headers: HTTPHeaders = ["Location": "/flow/check"]
        headers.add(name: "Set-Cookie", value: "a=1; path=/FLOW; SameSite=None; Secure")
        headers.add(name: "Set-Cookie", value: "b=2;Path=/flow;HttpOnly;Max-Age=60;Priority=High;Partitioned")
        headers.add(name: "Set-Cookie", value: "c=3; Expires=Wed, 21 Oct 2099 07:28:00 GMT; unknown=attr")
        headers.add(name: "Set-Cookie", value: "gone=x; Max-Age=0")
        return HTTPResponse(status: 302, headers: headers)
    }
    router.add(.get, "/flow/check") { request in
        let cookie = request.headers["Cookie"] ?? ""
        return .redirect(to: "http://127.0.0.1:9/cb?cookie=" + FormURLEncoding.escape(cookie))
    }
}

/// End-session pages: django-oauth-toolkit's confirmation (a button named "allow" with the
/// value "Logout") and django-allauth's ("Sign Out" beside "Stay"); the issuer's own page is
/// `/signed-out`.
private func addEndSessionPages(to router: inout Router) {
    router.add(.get, "/dot-logout") { _ in
        .html(
            """
            <html><title>Logout</title><form method="post" action="/dot-logout">
            <input type="hidden" name="csrfmiddlewaretoken" value="c1">
            <input type="submit" name="allow" value="Logout"><input type="submit" value="Cancel"></form></html>
            """)
    }
    router.add(.post, "/dot-logout") { request in
        let form = (try? request.formParameters()) ?? FormParameters()
        guard form["allow"] == "Logout", form["csrfmiddlewaretoken"] == "c1" else {
            return .html("<html><title>Bad</title></html>", status: 400)
        }
        return .redirect(to: "com.example.app://auth/signed-out?state=s2")
    }
    router.add(.get, "/allauth-logout") { _ in
        .html(
            """
            <html><title>Sign Out</title><form method="post" action="/allauth-logout">
            <button type="submit" name="action" value="stay">Stay signed in</button>
            <button type="submit" name="action" value="logout">Sign Out</button></form></html>
            """)
    }
    router.add(.post, "/allauth-logout") { request in
        let form = (try? request.formParameters()) ?? FormParameters()
        return form["action"] == "logout"
            ? .redirect(to: "com.example.app://auth/signed-out?state=s3")
            : .html("<html><title>Still here</title></html>")
    }
}

private func session(
    _ server: MicroHTTPServer, _ path: String,
    callback: WebAuthenticationCallback =
        .customScheme("com.example.app")
) -> WebAuthenticationSession {
    WebAuthenticationSession(
        url: server.baseURL + path, callback: callback, browser: LiteBrowser(curl: CurlTransport()))
}

private func failure(_ outcome: WebAuthenticationOutcome) -> WebAuthenticationError? {
    if case .failure(let error) = outcome.result { return error }
    return nil
}

@Suite("WebAuthenticationSession against a test site")
struct WebAuthenticationSessionTests {
    /// Signing out, the person presses the button that confirms it (whatever the form calls it)
    /// and the sheet closes at the post-logout redirect.
    @Test("a sign-out confirmation form is confirmed", arguments: ["/dot-logout", "/allauth-logout"])
    func signOutConfirmed(path: String) async throws {
        try await withTestServer(router: siteRouter()) { server in
            var sheet = session(server, path)
            sheet.purpose = .signOut
            let outcome = await sheet.run(as: WebUserScript(), in: WebPresentationContext())
            let url = try outcome.callbackURL()
            #expect(url.hasPrefix("com.example.app://auth/signed-out?state="))
            #expect(
                outcome.trace.map(\.action).first
                    == .confirmedSignOut(button: path == "/dot-logout" ? "Logout" : "Sign Out"))
        }
    }

    /// Signing out, any page that asks nothing (the issuer's own "signed out" page) is where
    /// the person closes the sheet; signing in, the same page is an unexpected one.
    @Test("the person closes a sign-out sheet on the issuer's page")
    func signOutClosed() async throws {
        try await withTestServer(router: siteRouter()) { server in
            var sheet = session(server, "/signed-out")
            sheet.purpose = .signOut
            let closed = try #require(
                failure(await sheet.run(as: WebUserScript(), in: WebPresentationContext())))
            #expect(closed.code == .canceledLogin)
            #expect(closed.message.contains("\"Signed out\""))
            sheet.purpose = .signIn
            let signIn = try #require(
                failure(await sheet.run(as: WebUserScript(), in: WebPresentationContext())))
            #expect(signIn.code == .unexpectedPage)
        }
    }

    /// Alice on the odd site's login form, whose fields have other names and a one-time code.
    static func customLoginUser(password: String) -> WebUserScript {
        .signIn(
            username: "alice", password: password, usernameField: "login", passwordField: "pass",
            otherFields: ["otp": "123456"])
    }

    /// Relative and 303 redirects are followed, a login form with other names is filled from
    /// the mapping, hidden inputs are echoed, and the callback comes back byte for byte.
    @Test("relative redirects, custom field names, exact callback")
    func customLogin() async throws {
        try await withTestServer(router: siteRouter()) { server in
            let outcome = await session(server, "/start").run(
                as: Self.customLoginUser(password: "secret"), in: WebPresentationContext())
            #expect(outcome.result == .success("com.Example.App://auth/callback?code=a%20b&state=s+1"))
            #expect(
                outcome.trace.map(\.action) == [
                    .followedRedirect(to: server.baseURL + "/step/one?x=1"),
                    .followedRedirect(to: server.baseURL + "/login"),
                    .submittedLogin(fields: ["login", "pass", "otp"]),
                    .reachedCallback,
                ])
            // A failed run has a shorter trace: checked, so that it fails the test, not the run.
            try #require(outcome.trace.count == 4)
            #expect(outcome.trace[2].title == "Log in")
            #expect(outcome.trace[3].method == .post)
        }
    }

    /// The handle counts the person's readings as they happen, for whoever watches the sheet: the
    /// login page is read once, and redirects are not pages.
    @Test("the handle counts the pages the person read")
    func pagesRead() async throws {
        try await withTestServer(router: siteRouter()) { server in
            let handle = try session(server, "/start").start(
                as: Self.customLoginUser(password: "secret"), in: WebPresentationContext())
            #expect(try await handle.callbackURL().hasPrefix("com.Example.App://auth/callback"))
            #expect(handle.pagesRead == 1)
        }
    }

    /// The same login form after the password went out is a refusal, with the page's text.
    @Test("a login form shown again is loginRejected with the page's error")
    func rejected() async throws {
        try await withTestServer(router: siteRouter()) { server in
            let outcome = await session(server, "/login").run(
                as: Self.customLoginUser(password: "wrong"), in: WebPresentationContext())
            let error = try #require(failure(outcome))
            #expect(error.code == .loginRejected)
            #expect(error.message.contains("Bad login for alice"))
            #expect(error.url == server.baseURL + "/session")
            #expect(error.status == 200)
        }
    }

    /// The password goes where a password manager puts it: the form's password input, whatever
    /// its name, and the username into the input named `login`.
    @Test("the password goes into the form's password input, whatever its name")
    func passwordFindsItsInput() async throws {
        try await withTestServer(router: siteRouter()) { server in
            let outcome = await session(server, "/login").run(
                as: .signIn(username: "alice", password: "secret", otherFields: ["otp": "123456"]),
                in: WebPresentationContext())
            #expect(try outcome.callbackURL() == "com.Example.App://auth/callback?code=a%20b&state=s+1")
            let login = try #require(
                outcome.trace.first { if case .submittedLogin = $0.action { true } else { false } })
            #expect(login.rules.contains("pass: the form's password input"))
            #expect(login.rules.contains("login: named \"login\""))
        }
    }

    /// A second password input the script has nothing for (a PIN) stops with a clear error.
    @Test("an unfilled password field is an unexpected page")
    func unfilledPassword() async throws {
        try await withTestServer(router: siteRouter()) { server in
            let outcome = await session(server, "/pin").run(
                as: .signIn(username: "alice", password: "secret"), in: WebPresentationContext())
            let error = try #require(failure(outcome))
            #expect(error.code == .unexpectedPage)
            #expect(error.message.contains("\"pin\""))
        }
    }

    /// Each broken answer gives its own error code, naming the URL and status.
    @Test(
        "broken answers give precise errors",
        arguments: [
            ("/loop", WebAuthenticationError.Code.redirectLoop, 302, "more than 20 redirects"),
            ("/foreign", .foreignScheme, 302, "itms-apps"),
            ("/json", .unexpectedPage, 200, "application/json"),
            ("/plain", .unexpectedPage, 200, "Welcome"),
            ("/boom", .errorPage, 500, "Database is down"),
            ("/teapot", .errorPage, 418, "no coffee here"),
            ("/big", .pageTooLarge, 200, "more than the 2097152"),
            ("/no-location", .unexpectedPage, 302, "without a Location"),
            ("/again", .unexpectedPage, 200, "more than 10 forms"),
        ])
    func brokenAnswers(path: String, code: WebAuthenticationError.Code, status: Int, text: String)
        async throws
    {
        try await withTestServer(router: siteRouter()) { server in
            let outcome = await session(server, path).run(
                as: .signIn(username: "a", password: "b"), in: WebPresentationContext())
            let error = try #require(failure(outcome))
            #expect(error.code == code, "\(error)")
            #expect(error.status == status)
            #expect(error.message.contains(text), "\(error.message)")
            #expect(error.url?.hasPrefix(server.baseURL + path) == true)
            #expect(outcome.trace.last?.action == .failed(code))
        }
    }

    /// Cookies with odd attributes are libcurl's business: path case, Secure over http,
    /// Max-Age=0 and unknown attributes all behave as RFC 6265 says.
    @Test("cookies with odd attributes, and a loopback callback")
    func oddCookies() async throws {
        try await withTestServer(router: siteRouter()) { server in
            let jar = CookieJar()
            let browser = LiteBrowser(cookieJar: jar, curl: CurlTransport())
            let session = WebAuthenticationSession(
                url: server.baseURL + "/cookies", callback: .loopback(port: nil, path: "/cb"),
                browser: browser)
            let callback = try await session.run(as: WebUserScript(), in: WebPresentationContext())
                .callbackURL()
            let query = try FormURLEncoding.decode(URLParts.query(of: callback) ?? "")
            let sent = Set(
                (query["cookie"] ?? "").split(separator: ";").map { String($0.drop { $0 == " " }) })
            // `a` has Path=/FLOW (paths are case-sensitive) and Secure over http: not sent.
            #expect(sent == ["b=2", "c=3"])
            #expect(Set(jar.cookies().map(\.name)).isSuperset(of: ["b", "c"]))
            #expect(!jar.cookies().contains { $0.name == "gone" })
        }
    }

    /// Loopback callbacks match on port when one is given.
    @Test("callback matching: custom scheme, claimed https, loopback")
    func callbackMatching() {
        let custom = WebAuthenticationCallback(redirectURI: "com.example.app://auth/callback")
        #expect(custom == .customScheme("com.example.app"))
        #expect(custom?.matches("COM.EXAMPLE.APP:/other?code=1") == true)
        #expect(custom?.matches("com.example.apps://x") == false)
        let claimed = WebAuthenticationCallback(redirectURI: "https://App.Example.com/cb")
        #expect(claimed?.matches("https://app.example.com/cb?code=1") == true)
        #expect(claimed?.matches("https://app.example.com/cb/more") == false)
        #expect(claimed?.matches("http://app.example.com/cb") == false)
        let loopback = WebAuthenticationCallback.loopback(port: 8123, path: "/cb")
        #expect(loopback.matches("http://127.0.0.1:8123/cb?code=1"))
        #expect(loopback.matches("http://[::1]:8123/cb"))
        #expect(!loopback.matches("http://127.0.0.1:8124/cb"))
        #expect(!loopback.matches("http://localhost:8123/cb"))
        #expect(WebAuthenticationCallback(redirectURI: "http://example.com/cb") == nil)
    }

    /// An unreachable server is a network error carrying the transport's cause.
    @Test("connection refused is a network error with its cause")
    func networkError() async throws {
        let session = WebAuthenticationSession(
            url: "http://127.0.0.1:9/authorize", callback: .customScheme("com.example.app"),
            browser: LiteBrowser(curl: CurlTransport()))
        let outcome = await session.run(as: WebUserScript(), in: WebPresentationContext())
        let error = try #require(failure(outcome))
        #expect(error.code == .network)
        #expect(error.cause?.code == .connectionFailed)
    }
}
