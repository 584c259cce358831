import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing
import WebAuthSession

/// What `lite` records of a consent refusal's script: the page's refusal sent past an
/// `onclick`, an `onsubmit` or the page's scripts may not have been a refusal at all.
@Suite struct ScriptDependenceTests {
    /// A consent page whose form says `action=approve` unless script changes it, and a consent
    /// endpoint that answers whatever the form says with a code, as an issuer that ignores its
    /// decline button might (the point here is what the sheet recorded, not the answer).
    static func router(consentPage: String) -> Router {
        var router = Router()
        router.add(.get, "/consent") { _ in .html(consentPage) }
        router.add(.post, "/consent") { request in
            let form = (try? request.formParameters()) ?? FormParameters()
            return .redirect(to: "com.example.app://cb?code=c1&sent=" + (form["action"] ?? "none"))
        }
        return router
    }

    static func refusal(on page: String) async throws -> (WebPageVisit, String?) {
        try await withTestServer(router: router(consentPage: page)) { server in
            let session = WebAuthenticationSession(
                url: server.baseURL + "/consent", callback: .customScheme("com.example.app"),
                browser: LiteBrowser(curl: CurlTransport()))
            let outcome = await session.run(
                as: .signIn(username: "alice", password: "x", consent: .deny), in: WebPresentationContext())
            let visit = try #require(
                outcome.trace.first { if case .deniedConsent = $0.action { true } else { false } })
            return (visit, try? outcome.callbackURL())
        }
    }

    @Test("a Refuse button with an onclick handler, on a page with a script")
    func clickHandler() async throws {
        let (visit, callback) = try await Self.refusal(
            on: """
                <html><title>Authorize</title><form id=f method=post action=/consent>
                <input type=hidden name=action id=decision value=approve>
                <button type=submit>Allow</button>
                <button type=submit onclick="document.getElementById('decision').value='deny'">Refuse</button>
                </form><script>/* analytics */</script></html>
                """)
        #expect(visit.scriptDependence == [.buttonHandler(button: "Refuse"), .pageScripts(count: 1)])
        // What lite sent without the handler: the approval the form says as served.
        #expect(callback?.hasSuffix("sent=approve") == true)
    }

    @Test("a form with an onsubmit handler")
    func submitHandler() async throws {
        let (visit, _) = try await Self.refusal(
            on: """
                <html><title>Authorize</title>
                <form method=post action=/consent onsubmit="return decide(event)">
                <button name=action value=approve>Allow</button><button name=action value=deny>Decline</button>
                </form></html>
                """)
        #expect(visit.scriptDependence == [.formHandler])
    }

    @Test("a plain refusal form depends on no script")
    func plainForm() async throws {
        let (visit, callback) = try await Self.refusal(
            on: """
                <html><title>Authorize</title><form method=post action=/consent>
                <button name=action value=approve>Allow</button><button name=action value=deny>Decline</button>
                </form></html>
                """)
        #expect(visit.scriptDependence == [])
        #expect(callback?.hasSuffix("sent=deny") == true)
    }

    @Test("only a refusal records it: an approval past the same handler does not")
    func approvalRecordsNothing() async throws {
        try await withTestServer(
            router: Self.router(
                consentPage: """
                    <form method=post action=/consent onsubmit="x()"><button name=action value=approve>Allow</button>
                    <button name=action value=deny>Decline</button></form>
                    """)
        ) { server in
            let session = WebAuthenticationSession(
                url: server.baseURL + "/consent", callback: .customScheme("com.example.app"),
                browser: LiteBrowser(curl: CurlTransport()))
            let outcome = await session.run(
                as: .signIn(username: "alice", password: "x"), in: WebPresentationContext())
            #expect(outcome.trace.allSatisfy { $0.scriptDependence.isEmpty })
        }
    }
}
