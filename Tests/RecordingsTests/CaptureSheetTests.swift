import HTTPCore
import Recordings
import Scenario
import Testing

/// What a capture shows of its sheets: the engine they ran in (`_engine`), login pages that
/// were script shells, and a script login's refusal.
@Suite struct CaptureSheetTests {
    /// The embedded issuer's `pages: javascript` login, as it serves it: no form, the page's
    /// data and a script that renders the form.
    static let shell = """
        <!DOCTYPE html><html><head><title>Sign in</title></head><body><main>
        <div id="app">Loading…</div>
        <noscript><p class="status">This page needs JavaScript.</p></noscript>
        <script type="application/json" id="page-data">{"action":"/u/login","csrf":"CSRF-0123456789",\
        "transaction":"TX-0123456789abcdef","username":""}</script>
        <script>document.getElementById("app").textContent = "Sign in";</script>
        </main></body></html>
        """

    /// A login page with its form in the HTML, and scripts beside it (analytics, a show-password
    /// toggle): what most HTML pages are.
    static let formWithScripts = """
        <!DOCTYPE html><html><head><title>Sign in</title><script src="/static/analytics.js"></script></head>
        <body><form method="post" action="/login">
        <input type="hidden" name="transaction" value="TX-0123456789abcdef">
        <input name="username"><input type="password" name="password"><button>Sign in</button>
        </form><script>document.querySelector("input").focus();</script></body></html>
        """

    static let authorize =
        "https://idp.example/authorize?response_type=code&client_id=app&redirect_uri=com.ex%3A%2Fcb&state=S"

    /// A sheet's authorization request answered with `page`, then a login POST answered by
    /// `loginAnswer`; the browser entries say `engine` (nil: another tool's capture).
    static func capture(
        page: String, engine: BrowserEngine?, app: String? = "com.ex",
        loginAnswer: (status: Int, contentType: String, body: String) = (
            400, "application/json", #"{"error":"Wrong email or password."}"#
        )
    ) -> HARCapture {
        func exchange(_ method: String, _ url: String, started: Int64) -> RecordedExchange {
            var exchange = RecordedExchange(
                source: .browser, startedAtMilliseconds: started, method: method, url: url,
                requestHeaders: [HeaderField("Accept", "text/html")], status: 200)
            exchange.app = app
            exchange.engine = engine
            return exchange
        }
        var authorization = exchange("GET", authorize, started: 1_800_000_000_000)
        authorization.responseHeaders = [HeaderField("Content-Type", "text/html; charset=utf-8")]
        authorization.responseBody = Array(page.utf8)
        var login = exchange("POST", "https://idp.example/u/login", started: 1_800_000_001_000)
        login.requestHeaders.append(HeaderField("Content-Type", "application/x-www-form-urlencoded"))
        login.requestBody = Array(
            "transaction=TX-0123456789abcdef&csrf=CSRF-0123456789&username=alice%40example.com&password=pw"
                .utf8)
        login.status = loginAnswer.status
        login.responseHeaders = [HeaderField("Content-Type", loginAnswer.contentType)]
        login.responseBody = Array(loginAnswer.body.utf8)
        return HARCapture(exchanges: [authorization, login])
    }

    @Test("the engine of each app's sheets is the one its browser entries name in _engine")
    func sheetEngineFromEntries() {
        let webkit = CaptureAnalysis(Self.capture(page: Self.shell, engine: .webkit))
        #expect(webkit.sheetEngines == ["com.ex": .webkit])
        #expect(webkit.sheetEngine(app: "com.ex") == .webkit)
        #expect(webkit.sheetEngine() == .webkit)

        let lite = CaptureAnalysis(Self.capture(page: Self.shell, engine: .lite))
        #expect(lite.sheetEngine() == .lite)

        let unnamedApp = CaptureAnalysis(Self.capture(page: Self.shell, engine: .webkit, app: nil))
        #expect(unnamedApp.sheetEngines == ["": .webkit])
        #expect(unnamedApp.sheetEngine(app: "com.other") == .webkit)

        // Another tool's capture says nothing of an engine: the replay keeps lite.
        let foreign = CaptureAnalysis(Self.capture(page: Self.shell, engine: nil))
        #expect(foreign.sheetEngines.isEmpty)
        #expect(foreign.sheetEngine() == nil)
    }

    @Test("_engine is read back from a HAR entry; an unknown engine is none")
    func engineReadFromHAR() throws {
        let har = """
            {"log": {"entries": [
              {"startedDateTime": "2026-12-05T10:00:00Z", "_source": "browser", "_engine": "webkit",
               "request": {"method": "GET", "url": "\(Self.authorize)"}, "response": {"status": 200}},
              {"startedDateTime": "2026-12-05T10:00:01Z", "_source": "browser", "_engine": "gecko",
               "request": {"method": "GET", "url": "https://idp.example/u/login"}, "response": {"status": 200}}
            ]}}
            """
        let capture = try HARImporter.parse(Array(har.utf8), file: "webkit.har")
        #expect(capture.exchanges.map(\.engine) == [.webkit, nil])
    }

    @Test("a 200 HTML page with scripts and no form is a script shell")
    func scriptShell() {
        let capture = Self.capture(page: Self.shell, engine: .lite)
        let isShell = CaptureAnalysis.isScriptShell(capture.exchanges[0])
        #expect(isShell)
        let analysis = CaptureAnalysis(capture)
        #expect(analysis.scriptShellPages == [0])
        #expect(analysis.showsScriptShellLogin)
    }

    @Test("a login page with a form is not a shell, whatever scripts it has")
    func formPageIsNotAShell() {
        let capture = Self.capture(
            page: Self.formWithScripts, engine: .lite,
            loginAnswer: (302, "text/html", ""))
        let formIsShell = CaptureAnalysis.isScriptShell(capture.exchanges[0])
        #expect(!formIsShell)
        #expect(CaptureAnalysis(capture).scriptShellPages == [])

        var plain = Self.capture(page: "<html><body><p>Signed out.</p></body></html>", engine: .lite)
        let plainIsShell = CaptureAnalysis.isScriptShell(plain.exchanges[0])
        #expect(!plainIsShell, "no script: a page, not a shell")
        plain.exchanges[0].responseBody = Array(Self.shell.utf8)
        plain.exchanges[0].status = 404
        let errorIsShell = CaptureAnalysis.isScriptShell(plain.exchanges[0])
        #expect(!errorIsShell, "an error page is not a login shell")
    }

    @Test("the login page an authorization redirect leads to is read as a shell")
    func shellBehindARedirect() {
        var capture = Self.capture(page: Self.shell, engine: .lite)
        var redirect = capture.exchanges[0]
        redirect.status = 302
        redirect.responseHeaders = [HeaderField("Location", "https://idp.example/login?tx=1")]
        redirect.responseBody = []
        var page = capture.exchanges[0]
        page.url = "https://idp.example/login?tx=1"
        page.startedAtMilliseconds += 10
        capture.exchanges = [redirect, page]
        let analysis = CaptureAnalysis(capture)
        #expect(analysis.signIns.first?.exchanges == [0, 1])
        #expect(analysis.scriptShellPages == [1])
    }

    @Test("the page a sheet stopped on is read as a shell, after a first page that was not one")
    func shellTheSheetStoppedOn() {
        // A login form in the HTML, accepted; the next page is a shell, where the sheet stopped.
        var capture = Self.capture(
            page: Self.formWithScripts, engine: .lite,
            loginAnswer: (302, "text/html", ""))
        capture.exchanges[1].responseHeaders.append(HeaderField("Location", "https://idp.example/u/consent"))
        var consent = capture.exchanges[0]
        consent.url = "https://idp.example/u/consent"
        consent.startedAtMilliseconds = capture.exchanges[1].startedAtMilliseconds + 10
        consent.responseBody = Array(Self.shell.utf8)
        capture.exchanges.append(consent)
        let analysis = CaptureAnalysis(capture)
        #expect(analysis.signIns.first?.exchanges == [0, 1, 2])
        #expect(analysis.scriptShellPages == [2])

        // The same shell on the way, with the sheet reaching the callback after it: not one.
        var through = capture
        var callback = capture.exchanges[1]
        callback.url = "https://idp.example/u/consent"
        callback.requestBody = Array("action=approve".utf8)
        callback.startedAtMilliseconds = consent.startedAtMilliseconds + 10
        callback.responseHeaders = [HeaderField("Location", "com.ex:/cb?code=C&state=S")]
        through.exchanges.append(callback)
        #expect(CaptureAnalysis(through).scriptShellPages == [])
    }

    @Test("a script login's JSON refusal is a rejected attempt, and the page's data is not what was typed")
    func scriptLoginRefused() throws {
        let analysis = CaptureAnalysis(Self.capture(page: Self.shell, engine: .webkit))
        let attempt = try #require(analysis.signIns.first?.loginAttempts.first)
        #expect(attempt.rejected)
        #expect(attempt.errorNotes == ["Wrong email or password."])
        // The transaction came from the shell's data (the CSRF token is dropped by its name).
        #expect(attempt.fields.map(\.name) == ["username", "password"])
        #expect(attempt.usernameField == "username")
        #expect(attempt.passwordField == "password")

        let accepted = CaptureAnalysis(
            Self.capture(
                page: Self.shell, engine: .webkit,
                loginAnswer: (200, "application/json", #"{"location":"https://idp.example/u/consent"}"#)))
        #expect(accepted.signIns.first?.loginAttempts.first?.rejected == false)
    }
}
