import Foundation
import HTTPClient
import HTTPCore
import HTTPServer
import Locking
import TestSupport
import Testing
import WebAuthSession
import WebKitSession
import WorldVocabulary

/// The `webkit` engine against pages of a test server: script-built forms, each kind of
/// callback, stores, overrides, dialogs, and what happens when the engine crashes or a page
/// never settles. Each test has an engine (a helper process) of its own, so that killing one
/// disturbs no other test.
@Suite("WebKitBrowser", .serialized)
struct WebKitBrowserTests {
    /// A fresh engine on the helper the tests use.
    static func engine() throws -> WebKitEngine {
        WebKitEngine(helperPath: try TestWebKit.engine().helperPath)
    }

    static func browser(_ engine: WebKitEngine, patience: Duration = .seconds(15), log: RequestLog? = nil)
        -> WebKitBrowser
    {
        let curl = CurlTransport(cookieJar: nil)
        return WebKitBrowser(
            webKit: engine, network: log.map { LoggingTransport(inner: curl, log: $0) } ?? curl,
            patience: patience)
    }

    static func session(
        _ server: MicroHTTPServer, _ path: String, browser: WebKitBrowser, ephemeral: Bool = true,
        callback: WebAuthenticationCallback = .customScheme("com.example.app"),
        purpose: WebAuthenticationSession.Purpose = .signIn
    ) -> WebAuthenticationSession {
        WebAuthenticationSession(
            url: server.baseURL + path, callback: callback, browser: browser,
            prefersEphemeralWebBrowserSession: ephemeral, purpose: purpose)
    }

    static let alice = WebUserScript.signIn(username: "alice@example.com", password: "secret")

    /// A login form that a script renders half a second late, with inputs that have no name
    /// (only labels and autocomplete), posted with `fetch`; the script then goes to the
    /// callback the server names.
    @Test("a late, nameless, script-posted login form is found and submitted")
    func lateScriptForm() async throws {
        let engine = try Self.engine()
        var router = Router()
        router.add(.get, "/login") { _ in
            .html(
                """
                <!doctype html><title>Sign in</title><div id=app>Loading…</div><script>
                setTimeout(() => {
                  document.getElementById('app').innerHTML = `<label for=e>Email address</label>
                    <input id=e autocomplete="username"><label for=p>Password</label>
                    <input id=p type=password><button id=go>Sign in</button>`;
                  document.getElementById('go').onclick = async () => {
                    const body = new URLSearchParams({u: document.getElementById('e').value,
                      p: document.getElementById('p').value});
                    const answer = await (await fetch('/session', {method: 'POST', body})).json();
                    location.assign(answer.location);
                  };
                }, 500);
                </script>
                """)
        }
        router.add(.post, "/session") { request in
            let form = (try? request.formParameters()) ?? FormParameters()
            let ok = form["u"] == "alice@example.com" && form["p"] == "secret"
            return .json(["location": .string(ok ? "com.example.app://cb?code=c1" : "/login")])
        }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            let outcome = await Self.session(server, "/login", browser: Self.browser(engine))
                .run(as: Self.alice, in: WebPresentationContext())
            #expect(outcome.result == .success("com.example.app://cb?code=c1"))
            let login = try #require(
                outcome.trace.first { if case .submittedLogin = $0.action { true } else { false } })
            #expect(login.rules.contains("#e: autocomplete=username"), "\(login.rules)")
            #expect(login.rules.contains("#p: the form's password input"), "\(login.rules)")
            #expect(login.screenshot.map { Array($0.jpeg.prefix(2)) } == [0xFF, 0xD8])
        }
        await engine.shutdown()
    }

    /// A login page that comes back after the password with its reason written by script a
    /// moment later, into an element marked only by its id: the rejection names what the page
    /// shows once its script wrote it.
    @Test("a rejected login names the reason a script wrote")
    func rejectedWithScriptedReason() async throws {
        let engine = try Self.engine()
        var router = Router()
        let page: @Sendable (Bool) -> String = { rejected in
            """
            <!doctype html><title>Sign in</title><div id="signin-error"></div>
            <form method=post action=/session><input name=username autocomplete=username>
            <input type=password name=password><button>Sign in</button></form>
            <script>
            if (\(rejected)) setTimeout(() => {
              document.getElementById('signin-error').textContent = 'Wrong email or password.';
            }, 300);
            </script>
            """
        }
        router.add(.get, "/login") { _ in .html(page(false)) }
        router.add(.post, "/session") { _ in .html(page(true)) }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            let outcome = await Self.session(server, "/login", browser: Self.browser(engine))
                .run(
                    as: WebUserScript.signIn(username: "alice@example.com", password: "wrong"),
                    in: WebPresentationContext())
            guard case .failure(let error) = outcome.result else {
                Issue.record("the sheet did not fail: \(outcome.result)")
                return
            }
            #expect(error.code == .loginRejected)
            #expect(error.message.hasSuffix(": Wrong email or password."), "\(error.message)")
        }
        await engine.shutdown()
    }

    /// The callback is stopped, never loaded, for every kind: a loopback URL on any port (a
    /// server there must see nothing), and a claimed https link.
    @Test("loopback and claimed-link callbacks are caught without being loaded")
    func callbacksAreNotLoaded() async throws {
        let engine = try Self.engine()
        let hits = Mutex(0)
        var app = Router()
        app.add(.get, "/cb") { _ in
            hits.withLock { $0 += 1 }
            return .html("<title>app</title>")
        }
        try await withTestServer(router: app) { appServer in
            var issuer = Router()
            issuer.add(.get, "/to-loopback") { _ in .redirect(to: appServer.baseURL + "/cb?code=l1") }
            issuer.add(.get, "/to-link") { _ in .redirect(to: "https://app.example/cb?code=h1") }
            try await withTestServer(limit: .seconds(60), router: issuer) { server in
                let browser = Self.browser(engine)
                let loopback = await Self.session(
                    server, "/to-loopback", browser: browser, callback: .loopback(port: nil, path: "/cb")
                ).run(as: Self.alice, in: WebPresentationContext())
                #expect(loopback.result == .success(appServer.baseURL + "/cb?code=l1"))
                let link = await Self.session(
                    server, "/to-link", browser: browser, callback: .https(host: "app.example", path: "/cb")
                ).run(as: Self.alice, in: WebPresentationContext())
                #expect(link.result == .success("https://app.example/cb?code=h1"))
            }
        }
        #expect(hits.withLock { $0 } == 0)
        await engine.shutdown()
    }

    /// The shared store keeps a cookie from one sheet to the next; an ephemeral sheet starts with
    /// none and leaves none. The proxy shows the `Cookie` WebKit sent and the POST body.
    @Test("a shared store keeps cookies across sheets, an ephemeral one does not")
    func stores() async throws {
        let engine = try Self.engine()
        let log = RequestLog()
        var router = Router()
        router.add(.get, "/set") { _ in
            HTTPResponse(
                status: 302, headers: ["Location": "/form", "Set-Cookie": "sso=s1; Path=/; HttpOnly"])
        }
        router.add(.get, "/form") { _ in
            .html(
                "<title>f</title><form method=post action=/done><input name=username><button>Next</button></form>"
            )
        }
        router.add(.post, "/done") { request in
            .redirect(
                to: "com.example.app://cb?cookie="
                    + FormURLEncoding.escape(request.headers["Cookie"] ?? "none"))
        }
        router.add(.get, "/check") { request in
            .redirect(
                to: "com.example.app://cb?cookie="
                    + FormURLEncoding.escape(request.headers["Cookie"] ?? "none"))
        }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            let browser = Self.browser(engine, log: log)
            let first = await Self.session(server, "/set", browser: browser, ephemeral: false)
                .run(as: Self.alice, in: WebPresentationContext())
            #expect(first.result == .success("com.example.app://cb?cookie=sso%3Ds1"))
            let shared = await Self.session(server, "/check", browser: browser, ephemeral: false)
                .run(as: Self.alice, in: WebPresentationContext())
            #expect(shared.result == .success("com.example.app://cb?cookie=sso%3Ds1"))
            let ephemeral = await Self.session(server, "/check", browser: browser, ephemeral: true)
                .run(as: Self.alice, in: WebPresentationContext())
            #expect(ephemeral.result == .success("com.example.app://cb?cookie=none"))
            #expect(await browser.cookies().map(\.name) == ["sso"])
            await browser.close()
        }
        let post = try #require(log.requests.first { $0.method == .post })
        #expect(post.headers["Cookie"] == "sso=s1")
        #expect(String(decoding: post.body, as: UTF8.self) == "username=alice%40example.com")
        #expect(log.requests.allSatisfy { $0.headers["User-Agent"]?.contains("SignInSimSheet") == false })
        await engine.shutdown()
    }

    /// A page the person cannot read (an unlabelled code input, a button that says nothing) is
    /// handled by the script's overrides, and the record says which rule was used.
    @Test("fill and click overrides by selector and label")
    func overrides() async throws {
        let engine = try Self.engine()
        var router = Router()
        router.add(.get, "/otp") { _ in
            .html(
                """
                <title>Code</title><input id=code><span role=button class=go>→</span>
                <script>document.querySelector('.go').onclick = () =>
                  location.assign('com.example.app://cb?otp=' + document.getElementById('code').value);</script>
                """)
        }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            var user = Self.alice
            user.overrides = [
                .fill(WebElementTarget("#code"), value: "424242"), .click(WebElementTarget(".go")),
            ]
            let outcome = await Self.session(server, "/otp", browser: Self.browser(engine))
                .run(as: user, in: WebPresentationContext())
            #expect(outcome.result == .success("com.example.app://cb?otp=424242"))
            let act = try #require(outcome.trace.first { !$0.rules.isEmpty })
            #expect(act.rules.contains("#code: the override #code"), "\(act.rules)")
            #expect(act.rules.contains("pressed \"→\": the override .go"), "\(act.rules)")
        }
        await engine.shutdown()
    }

    /// Signing out, a `confirm("Do you want to log out?")` is answered OK, and the record says so.
    @Test("a sign-out confirm dialog is answered yes")
    func confirmDialog() async throws {
        let engine = try Self.engine()
        var router = Router()
        router.add(.get, "/logout") { _ in
            .html(
                """
                <title>Log out</title><script>
                if (confirm('Do you want to log out?')) location.assign('com.example.app://out?state=s');
                else document.title = 'stayed';</script>
                """)
        }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            let outcome = await Self.session(
                server, "/logout", browser: Self.browser(engine), purpose: .signOut
            )
            .run(as: Self.alice, in: WebPresentationContext())
            #expect(outcome.result == .success("com.example.app://out?state=s"))
        }
        await engine.shutdown()
    }

    /// The engine dies with a sheet up: the sheet ends with `browser_crashed` naming the last
    /// page, and the next sheet runs in a new helper.
    @Test("an engine crash fails the sheet with browser_crashed; the next sheet gets a fresh engine")
    func crash() async throws {
        let engine = try Self.engine()
        let loaded = Mutex(0)
        var router = Router()
        router.add(.get, "/forever") { _ in
            loaded.withLock { $0 += 1 }
            return .html(
                "<title>Still loading</title><div>Loading…</div><script>/* never renders */</script>")
        }
        router.add(.get, "/ok") { _ in .redirect(to: "com.example.app://cb?code=after") }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            let browser = Self.browser(engine, patience: .seconds(30))
            let handle = try Self.session(server, "/forever", browser: browser)
                .start(as: Self.alice, in: WebPresentationContext())
            let deadline = ContinuousClock.now + .seconds(20)
            while loaded.withLock({ $0 }) == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(loaded.withLock { $0 } == 1, "the page was never requested")
            // The person reads the page every 100 ms; the crash report names what was read last.
            try await poll(until: "the person to read the loading page", within: .seconds(20)) {
                handle.pagesRead > 0
            }
            let before = try #require(engine.helperPID)
            engine.killHelper()
            let outcome = await handle.outcome()
            guard case .failure(let error) = outcome.result else {
                Issue.record("the sheet did not fail: \(outcome.result)")
                return
            }
            #expect(error.code == .browserCrashed)
            #expect(error.message.contains("\"Still loading\""), "\(error.message)")
            let next = await Self.session(server, "/ok", browser: browser)
                .run(as: Self.alice, in: WebPresentationContext())
            #expect(next.result == .success("com.example.app://cb?code=after"))
            #expect(engine.launches == 2)
            #expect(engine.helperPID != before)
        }
        await engine.shutdown()
    }

    /// A page that keeps changing and never offers a form ends at the person's patience, as
    /// `timeout`, with a picture of it.
    @Test("a page that never settles ends at the patience, with a screenshot")
    func neverSettles() async throws {
        let engine = try Self.engine()
        var router = Router()
        router.add(.get, "/spinner") { _ in
            .html(
                """
                <title>Please wait</title><p id=n>0</p>
                <script>let n = 0; setInterval(() => { document.getElementById('n').textContent = ++n; }, 100);</script>
                """)
        }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            guard let (error, outcome) = await Self.failureAtPatience(server, "/spinner", engine: engine)
            else {
                return
            }
            #expect(error.code == .timeout, "\(error)")
            let last = try #require(outcome.trace.last)
            #expect(last.screenshot.map { Array($0.jpeg.prefix(2)) } == [0xFF, 0xD8])
        }
        await engine.shutdown()
    }

    /// Runs a sheet on `path` with a patience of 3 s, expecting it to fail well before 20 s: the
    /// error and the outcome, or nil (an issue recorded) when it did not fail.
    static func failureAtPatience(_ server: MicroHTTPServer, _ path: String, engine: WebKitEngine) async
        -> (WebAuthenticationError, WebAuthenticationOutcome)?
    {
        let started = ContinuousClock.now
        let outcome = await Self.session(server, path, browser: Self.browser(engine, patience: .seconds(3)))
            .run(as: Self.alice, in: WebPresentationContext())
        #expect(ContinuousClock.now - started < .seconds(20))
        guard case .failure(let error) = outcome.result else {
            Issue.record("the sheet did not fail: \(outcome.result)")
            return nil
        }
        return (error, outcome)
    }

    /// A start page answered 204 No Content: WebKit keeps no page for it and has none to show,
    /// so nothing ever loads. The person gives up at the patience (`timeout`, naming the answer)
    /// instead of waiting for the session's deadline.
    @Test("an answer the engine shows no page for ends at the patience")
    func answerWithoutPage() async throws {
        let engine = try Self.engine()
        var router = Router()
        router.add(.get, "/authorize") { _ in HTTPResponse(status: 204) }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            guard let (error, _) = await Self.failureAtPatience(server, "/authorize", engine: engine) else {
                return
            }
            #expect(error.code == .timeout, "\(error)")
            #expect(error.message.contains("was answered 204"), "\(error.message)")
        }
        await engine.shutdown()
    }

    /// Cancelling the sheet ends it at once with `canceledLogin`.
    @Test("cancel dismisses the sheet")
    func cancel() async throws {
        let engine = try Self.engine()
        var router = Router()
        router.add(.get, "/wait") { _ in .html("<title>Wait</title><p>Loading…</p><script></script>") }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            let context = WebPresentationContext()
            let handle = try Self.session(server, "/wait", browser: Self.browser(engine))
                .start(as: Self.alice, in: context)
            #expect(context.isPresenting)
            handle.cancel()
            let outcome = await handle.outcome()
            if case .failure(let error) = outcome.result {
                #expect(error.code == .canceledLogin)
            } else {
                Issue.record("a cancelled sheet reached \(outcome.result)")
            }
            #expect(!context.isPresenting)
        }
        await engine.shutdown()
    }
}

/// Requests a transport carried, as the proxy forwarded them.
final class RequestLog: Sendable {
    private let entries = Mutex<[HTTPRequest]>([])
    var requests: [HTTPRequest] { entries.withLock { $0 } }
    func append(_ request: HTTPRequest) { entries.withLock { $0.append(request) } }
}

struct LoggingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let log: RequestLog

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        log.append(request)
        return try await inner.send(request)
    }
}

/// An `https` issuer's pages, through the proxy's TLS tunnel: the transport behind it stands
/// for the internet, answering `https://issuer.test` from a loopback test server.
@Suite("WebKitBrowser over HTTPS")
struct WebKitHTTPSTests {
    @Test("https pages go through the tunnel and are forwarded with their cookies and bodies")
    func httpsThroughTheTunnel() async throws {
        let engine = try WebKitBrowserTests.engine()
        let log = RequestLog()
        var router = Router()
        router.add(.get, "/login") { _ in
            HTTPResponse(
                status: 200,
                headers: [
                    "Content-Type": "text/html; charset=utf-8",
                    "Set-Cookie": "sid=t1; Path=/; Secure; HttpOnly",
                ],
                body: Array(
                    """
                    <title>Secure login</title><form method=post action=/session>
                    <input name=username autocomplete=username><input type=password name=password>
                    <button>Sign in</button></form>
                    """.utf8))
        }
        router.add(.post, "/session") { request in
            .redirect(
                to: "com.example.app://cb?cookie="
                    + FormURLEncoding.escape(request.headers["Cookie"] ?? "none"))
        }
        try await withTestServer(limit: .seconds(60), router: router) { server in
            let internet = HostRewritingTransport(
                from: "https://issuer.test", to: server.baseURL, inner: CurlTransport(cookieJar: nil))
            let browser = WebKitBrowser(webKit: engine, network: LoggingTransport(inner: internet, log: log))
            let outcome = await WebAuthenticationSession(
                url: "https://issuer.test/login", callback: .customScheme("com.example.app"),
                browser: browser,
                prefersEphemeralWebBrowserSession: true
            ).run(as: WebKitBrowserTests.alice, in: WebPresentationContext())
            #expect(outcome.result == .success("com.example.app://cb?cookie=sid%3Dt1"))
            #expect(outcome.trace.first?.status == 200)
            await browser.close()
        }
        let post = try #require(log.requests.first { $0.method == .post })
        #expect(post.url == "https://issuer.test/session")
        #expect(post.headers["Cookie"] == "sid=t1")
        #expect(String(decoding: post.body, as: UTF8.self) == "username=alice%40example.com&password=secret")
        await engine.shutdown()
    }
}

/// Sends `https://issuer.test/…` to a loopback server instead: the test's stand-in for the internet.
struct HostRewritingTransport: HTTPTransport {
    let from: String
    let to: String
    let inner: any HTTPTransport

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        var request = request
        if request.url.hasPrefix(from) { request.url = to + request.url.dropFirst(from.count) }
        return try await inner.send(request)
    }
}
