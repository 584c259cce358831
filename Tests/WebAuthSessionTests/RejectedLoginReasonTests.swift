import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing
import WebAuthSession
import WorldVocabulary

/// A login form shown again after the password went out ends the sheet with `loginRejected`
/// and the page's reason; in `lite`, when the HTML holds none, the message says whether a
/// script may be what writes it.
@Suite struct RejectedLoginReasonTests {
    static let form = """
        <form method=post action=/session><input name=username>
        <input type=password name=password><button>Sign in</button></form>
        """

    static func rejection(_ pageAfterPassword: String) async throws -> WebAuthenticationError {
        var router = Router()
        router.add(.get, "/login") { _ in .html("<html><title>Sign in</title>\(form)</html>") }
        router.add(.post, "/session") { _ in .html(pageAfterPassword) }
        return try await withTestServer(router: router) { server in
            let session = WebAuthenticationSession(
                url: server.baseURL + "/login", callback: .customScheme("com.example.app"),
                browser: LiteBrowser(curl: CurlTransport()))
            let outcome = await session.run(
                as: .signIn(username: "alice", password: "wrong"), in: WebPresentationContext())
            guard case .failure(let error) = outcome.result else {
                Issue.record("the sheet did not fail: \(outcome.result)")
                return WebAuthenticationError(.unexpectedPage, "")
            }
            return error
        }
    }

    @Test(
        "the reason the HTML shows, by role, live region, or a class or id naming an error or alert",
        arguments: [
            #"<div role="alert">Wrong password.</div>"#,
            #"<p aria-live="polite">Wrong password.</p>"#,
            #"<span id="login-error">Wrong password.</span>"#,
            #"<div class="alert alert-danger">Wrong password.</div>"#,
            #"<div id="alertBox">Wrong password.</div>"#,
            #"<div class="form-error">Wrong password.</div>"#,
        ])
    func reasonInTheHTML(marker: String) async throws {
        let error = try await Self.rejection("<html><title>Sign in</title>\(marker)\(Self.form)</html>")
        #expect(error.code == .loginRejected)
        #expect(error.message.hasSuffix(": Wrong password."), "\(error.message)")
    }

    @Test("a live region switched off is no reason")
    func liveRegionOff() async throws {
        let error = try await Self.rejection(
            #"<html><title>Sign in</title><p aria-live="off">Tip: use your email.</p>"# + Self.form
                + "</html>")
        #expect(error.message.hasSuffix(": no reason in the page"), "\(error.message)")
    }

    @Test("no reason in HTML that has scripts: they may write it")
    func scriptsMayWriteIt() async throws {
        let error = try await Self.rejection(
            """
            <html><title>Sign in</title><div id=msg></div>\(Self.form)
            <script>document.getElementById('msg').textContent = 'Wrong password.'</script></html>
            """)
        #expect(error.code == .loginRejected)
        #expect(
            error.message.contains(
                "no reason in the page's HTML; the page has scripts (1), which may write it (the lite engine runs none"
            ),
            "\(error.message)")
    }

    @Test("no reason and no scripts: none in the page")
    func noReason() async throws {
        let error = try await Self.rejection("<html><title>Sign in</title>\(Self.form)</html>")
        #expect(error.message.hasSuffix(": no reason in the page"), "\(error.message)")
    }
}
