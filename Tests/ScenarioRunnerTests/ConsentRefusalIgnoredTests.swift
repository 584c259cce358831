import HTTPClient
import HTTPCore
import HTTPServer
import Scenario
import ScenarioRunner
import TestSupport
import Testing
import WebAuthSession

/// `consent_refusal_ignored`: a refusal in the sheet of a sign-in that ended in a session fails
/// the run, and says whether the issuer ignored the refusal or the refusal needed JavaScript.
@Suite struct ConsentRefusalIgnoredTests {
    static func scenario(_ text: String) throws -> Scenario {
        try ScenarioLoader.parse(Array(text.utf8), file: "refusal.yaml")
    }

    static func trace(refusal scriptDependence: [ScriptDependence]) -> [WebPageVisit] {
        [
            WebPageVisit(
                method: .get, url: "https://issuer.example/authorize?state=x", status: 302,
                action: .followedRedirect(to: "https://issuer.example/u/login")),
            WebPageVisit(
                method: .get, url: "https://issuer.example/u/consent?tx=1", status: 200, title: "Authorize",
                action: .deniedConsent(button: "Refuse"), scriptDependence: scriptDependence),
            WebPageVisit(
                method: .post, url: "https://issuer.example/u/consent", status: 302, action: .reachedCallback),
        ]
    }

    @Test("no refusal in the sheet, no finding")
    func noRefusal() {
        let approved = [
            WebPageVisit(
                method: .get, url: "https://issuer.example/u/consent", status: 200,
                action: .approvedConsent(button: "Allow"))
        ]
        #expect(ConsentRefusalIgnored(trace: approved, engine: .lite) == nil)
        #expect(ConsentRefusalIgnored(trace: [], engine: .webkit) == nil)
    }

    @Test("a refusal sent as a plain form, or by webkit, was ignored by the issuer")
    func issuerIgnored() throws {
        for engine in BrowserEngine.allCases {
            let finding = try #require(ConsentRefusalIgnored(trace: Self.trace(refusal: []), engine: engine))
            #expect(finding.cause == .issuerIgnoredRefusal)
            #expect(finding.code.rawValue == "consent_refusal_ignored")
            #expect(finding.message.contains("the issuer ignored the refusal"), "\(finding)")
            #expect(finding.message.contains("https://issuer.example/u/consent"))
            #expect(!finding.message.contains("tx=1"))
        }
        // WebKit ran the scripts: what lite would call script-dependent is not the cause there.
        let webkit = try #require(
            ConsentRefusalIgnored(trace: Self.trace(refusal: [.formHandler]), engine: .webkit))
        #expect(webkit.cause == .issuerIgnoredRefusal)
        #expect(webkit.message.contains("webkit engine ran the page's scripts"))
    }

    @Test("a lite refusal past script it skipped needs JavaScript")
    func needsJavaScript() throws {
        let handler = try #require(
            ConsentRefusalIgnored(
                trace: Self.trace(refusal: [.buttonHandler(button: "Refuse"), .pageScripts(count: 1)]),
                engine: .lite))
        #expect(
            handler.cause
                == .refusalNeedsJavaScript([.buttonHandler(button: "Refuse"), .pageScripts(count: 1)]))
        #expect(
            handler.message.contains("the refusal needs JavaScript that the lite engine cannot run"),
            "\(handler)")
        #expect(handler.message.contains("the button \"Refuse\" has an onclick handler"))
        #expect(handler.message.contains("--browser webkit"))
        let scriptsOnly = try #require(
            ConsentRefusalIgnored(trace: Self.trace(refusal: [.pageScripts(count: 2)]), engine: .lite))
        #expect(scriptsOnly.message.contains("may need JavaScript"), "\(scriptsOnly)")
        #expect(scriptsOnly.message.contains("or the issuer ignored it"))
    }

    /// The embedded issuer's `consent-refusal-ignored` fault answers the refusal with a code.
    @Test("the fault's refusal fails the sign-in with consent_refusal_ignored, unless the step expects it")
    func fault() async throws {
        let unexpected = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: ignored
                steps:
                  - launch
                  - issuer: {fault: consent-refusal-ignored}
                  - signIn: {consent: deny}
                  - expect: {session: present}
                """), seed: 1)
        #expect(unexpected.result.status == .failed)
        let failure = try #require(unexpected.result.failure)
        #expect(failure.location.line == 5)
        #expect(failure.actual == "consent_refusal_ignored")
        #expect(failure.expected == "success")
        #expect(failure.message.contains("the issuer ignored the refusal"), "\(failure.message)")
        #expect(failure.message.contains("plain form submission"), "\(failure.message)")
        #expect(unexpected.result.steps.map(\.outcome) == [.passed, .passed, .failed, .skipped])

        let expected = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: expected
                steps:
                  - launch
                  - issuer: {fault: consent-refusal-ignored}
                  - signIn: {consent: deny, error: consent_refusal_ignored}
                  - expect: {session: present, error: null}
                  - signOut: {end_session: false}
                  - signIn: {consent: deny, error: authorization_denied}
                """), seed: 1)
        #expect(expected.result.status == .passed, "\(String(describing: expected.result.failure))")
        #expect(expected.result.steps[2].note?.hasPrefix("consent_refusal_ignored, as expected") == true)

        // Without the fault, a step expecting the finding fails: the refusal was honoured.
        let honoured = await ScenarioRunner.run(
            try Self.scenario(
                "name: h\nsteps:\n  - launch\n  - signIn: {consent: deny, error: consent_refusal_ignored}\n"),
            seed: 1)
        #expect(honoured.result.failure?.actual == "authorization_denied")
    }

    /// In `lite`, a Refuse button whose refusal is made by its `onclick` sends the form as
    /// served, an approval; the issuer answers with a code, and the report says the refusal
    /// needs JavaScript.
    @Test("lite: a refusal made by an onclick handler is reported as needing JavaScript")
    func liteRefusalNeedsJavaScript() async throws {
        var router = Router()
        router.add(.get, "/consent") { _ in
            .html(
                """
                <html><title>Authorize</title><form method=post action=/consent>
                <input type=hidden name=decision id=decision value=approve>
                <button type=submit>Allow</button>
                <button type=submit onclick="document.getElementById('decision').value='deny'">Refuse</button>
                </form></html>
                """)
        }
        router.add(.post, "/consent") { request in
            let form = (try? request.formParameters()) ?? FormParameters()
            return form["decision"] == "deny"
                ? .redirect(to: "com.example.app://cb?error=access_denied")
                : .redirect(to: "com.example.app://cb?code=c1")
        }
        let outcome = try await withTestServer(router: router) { server in
            await WebAuthenticationSession(
                url: server.baseURL + "/consent", callback: .customScheme("com.example.app"),
                browser: LiteBrowser(curl: CurlTransport())
            ).run(as: .signIn(username: "alice", password: "x", consent: .deny), in: WebPresentationContext())
        }
        #expect(outcome.result == .success("com.example.app://cb?code=c1"))
        let finding = try #require(ConsentRefusalIgnored(trace: outcome.trace, engine: .lite))
        #expect(finding.cause == .refusalNeedsJavaScript([.buttonHandler(button: "Refuse")]))
        #expect(
            finding.message.contains(
                "the refusal needs JavaScript that the lite engine cannot run (the button \"Refuse\" has an onclick handler)"
            ),
            "\(finding)")
    }

    /// The embedded issuer's `javascript` pages: Refuse works only through the page's script,
    /// which WebKit runs. Refused, the sign-in ends in `authorization_denied`; with the fault
    /// armed it ends in a session, and the report blames the issuer, not the engine.
    @Test("webkit: the scripted Refuse is a refusal, and an ignored one is the issuer's doing")
    func webKitRefusal() async throws {
        let browsers = BrowserSelection(webKit: try TestWebKit.engine())
        let outcome = await ScenarioRunner.run(
            try Self.scenario(
                """
                name: webkit refusal
                browser: webkit
                issuer: {tenant: {pages: javascript}}
                steps:
                  - launch
                  - signIn: {consent: deny, error: authorization_denied}
                  - expect:
                      session: absent
                      requests: [{path: /u/consent, method: POST, params: {action: deny}, count: 1}]
                  - issuer: {fault: consent-refusal-ignored}
                  - signIn: {consent: deny}
                """), seed: 1, browsers: browsers)
        #expect(outcome.result.status == .failed)
        let failure = try #require(outcome.result.failure)
        #expect(failure.location.line == 11, "\(failure)")
        #expect(failure.actual == "consent_refusal_ignored")
        #expect(failure.message.contains("the issuer ignored the refusal"), "\(failure.message)")
        #expect(failure.message.contains("webkit engine ran the page's scripts"), "\(failure.message)")
    }

    @Test("expect.error names the SDK's errors, not the run's finding")
    func notAnSDKError() {
        #expect(throws: ScenarioError.self) {
            try Self.scenario("name: e\nsteps:\n  - expect: {error: consent_refusal_ignored}\n")
        }
    }
}
