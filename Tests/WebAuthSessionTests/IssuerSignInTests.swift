import Clocks
import Cryptography
import HTTPClient
import HTTPCore
import Issuer
import TestSupport
import Testing
import WebAuthSession
import WorldVocabulary

/// The embedded issuer's default tenant: its native app and first user.
private enum NativeApp {
    static let clientID = "com.example.app"
    static let redirectURI = "com.example.app://auth/callback"
    /// RFC 7636 Appendix B.
    static let codeVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let codeChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let email = "alice@example.com"
    static let password = "alice-password"

    static func authorizeURL(_ issuer: Issuer, state: String, extra: FormParameters = [:]) -> String {
        var parameters: FormParameters = [
            "response_type": "code", "client_id": clientID, "redirect_uri": redirectURI,
            "scope": "openid profile email", "state": state, "nonce": "n-" + state,
            "code_challenge": codeChallenge, "code_challenge_method": "S256",
        ]
        for pair in extra { parameters.append(pair.name, pair.value) }
        return issuer.identifier + "/authorize?" + FormURLEncoding.encode(parameters)
    }
}

/// One simulated device: a system browser over one libcurl loop, and the app's scene.
private struct Phone {
    let browser = LiteBrowser(curl: CurlTransport(cookieJar: nil))
    let context = WebPresentationContext()

    func signIn(
        _ issuer: Issuer,
        as user: WebUserScript = .signIn(username: NativeApp.email, password: NativeApp.password),
        ephemeral: Bool = false, state: String = "s1", extra: FormParameters = [:]
    ) async -> WebAuthenticationOutcome {
        let session = WebAuthenticationSession(
            url: NativeApp.authorizeURL(issuer, state: state, extra: extra),
            callback: WebAuthenticationCallback(redirectURI: NativeApp.redirectURI)!, browser: browser,
            prefersEphemeralWebBrowserSession: ephemeral)
        return await session.run(as: user, in: context)
    }
}

/// Runs `body` against the embedded issuer served on loopback.
private func withServedIssuer(_ body: @escaping @Sendable (Issuer) async throws -> Void) async throws {
    try await withDeployment(
        .loopback, inProcessBaseURL: "http://issuer.test",
        make: { baseURL in
            try Issuer(
                baseURL: baseURL, clock: ManualWallClock(now: 1_800_000_000), random: SeededRandom(seed: 7))
        },
        respond: { issuer, request in await issuer.respond(to: request) },
        respondImmediately: { issuer, request in issuer.respondImmediately(to: request) },
        { issuer, _ in try await body(issuer) })
}

private func callbackParameters(_ outcome: WebAuthenticationOutcome) throws -> FormParameters {
    let url = try outcome.callbackURL()
    #expect(url.hasPrefix(NativeApp.redirectURI + "?"))
    return try FormURLEncoding.decode(URLParts.query(of: url) ?? "")
}

private func submittedLogins(_ outcome: WebAuthenticationOutcome) -> Int {
    outcome.trace.filter {
        if case .submittedLogin = $0.action { return true }
        return false
    }.count
}

@Suite("WebAuthenticationSession against the embedded issuer")
struct IssuerSignInTests {
    /// Login, consent, callback with code, state and iss; the code redeems with the PKCE
    /// verifier, so the whole authorization code flow went through the simulated browser.
    @Test("sign in and approve: code, state and iss; the code redeems")
    func approve() async throws {
        try await withServedIssuer { issuer in
            let outcome = await Phone().signIn(issuer)
            let parameters = try callbackParameters(outcome)
            #expect(parameters["state"] == "s1")
            #expect(parameters["iss"] == issuer.identifier)
            let code = try #require(parameters["code"])
            #expect(
                outcome.trace.map(\.action).suffix(3) == [
                    .submittedLogin(fields: ["username", "password"]), .approvedConsent(button: "Accept"),
                    .reachedCallback,
                ])
            #expect(outcome.trace.first?.title == "Sign in - SignInSim")

            let token = await issuer.respond(
                to: .form(
                    url: issuer.identifier + "/oauth/token",
                    parameters: [
                        "grant_type": "authorization_code", "code": code,
                        "redirect_uri": NativeApp.redirectURI,
                        "client_id": NativeApp.clientID, "code_verifier": NativeApp.codeVerifier,
                    ]))
            #expect(token.status == 200, "\(token.bodyText ?? "")")
            #expect(try token.jsonBody()["id_token"]?.stringValue != nil)
        }
    }

    /// A wrong password brings the login form back: loginRejected with the issuer's message.
    @Test("a wrong password is loginRejected with the page's error")
    func wrongPassword() async throws {
        try await withServedIssuer { issuer in
            let outcome = await Phone().signIn(
                issuer, as: .signIn(username: NativeApp.email, password: "nope"))
            guard case .failure(let error) = outcome.result else {
                Issue.record("expected loginRejected, got \(outcome.result)")
                return
            }
            #expect(error.code == .loginRejected)
            #expect(error.message.contains("Wrong email or password."))
            #expect(error.url == issuer.identifier + "/u/login")
            #expect(submittedLogins(outcome) == 1)
        }
    }

    /// A user with a retry types the corrected password when the login form comes back and
    /// gets through; one with too few retries is refused after using them all.
    @Test("retries: a corrected password after a refused one")
    func retryAfterWrongPassword() async throws {
        try await withServedIssuer { issuer in
            var user = WebUserScript.signIn(username: NativeApp.email, password: "nope")
            user.retries = [["password": "still wrong"], ["password": NativeApp.password]]
            let outcome = await Phone().signIn(issuer, as: user)
            let parameters = try callbackParameters(outcome)
            #expect(parameters["code"] != nil)
            #expect(submittedLogins(outcome) == 3)

            user.retries = [["password": "still wrong"]]
            let refused = await Phone().signIn(issuer, as: user)
            guard case .failure(let error) = refused.result else {
                Issue.record("expected loginRejected, got \(refused.result)")
                return
            }
            #expect(error.code == .loginRejected)
            #expect(submittedLogins(refused) == 2)
        }
    }

    /// Declining consent sends access_denied to the app, with state and iss.
    @Test("deny consent: callback with error=access_denied")
    func deny() async throws {
        try await withServedIssuer { issuer in
            let outcome = await Phone().signIn(
                issuer, as: .signIn(username: NativeApp.email, password: NativeApp.password, consent: .deny))
            let parameters = try callbackParameters(outcome)
            #expect(parameters["error"] == "access_denied")
            #expect(parameters["state"] == "s1")
            #expect(parameters["iss"] == issuer.identifier)
            #expect(parameters["code"] == nil)
            #expect(outcome.trace.contains { $0.action == .deniedConsent(button: "Decline") })
        }
    }

    /// A user scripted to deny consent whose sheet reaches the callback with a code and no
    /// consent page (the issuer remembers the consent and the browser its session) fails with
    /// consentNotShown instead of signing in; an error callback without a consent page is the
    /// issuer's answer and passes.
    @Test("deny consent without a consent page: consentNotShown")
    func denyWithoutConsentPage() async throws {
        try await withServedIssuer { issuer in
            let phone = Phone()
            let denier = WebUserScript.signIn(
                username: NativeApp.email, password: NativeApp.password, consent: .deny)
            let silent = await phone.signIn(issuer, as: denier, extra: ["prompt": "none"])
            #expect(try callbackParameters(silent)["error"] == "login_required")

            _ = try callbackParameters(await phone.signIn(issuer, state: "first"))
            let second = await phone.signIn(issuer, as: denier, state: "second")
            let error = try #require(throws: WebAuthenticationError.self) { try second.callbackURL() }
            #expect(error.code == .consentNotShown)
            #expect(error.message.contains("no consent page was shown"))
            #expect(second.trace.last?.action == .failed(.consentNotShown), "\(second.trace)")
        }
    }

    /// Field bug 14: a shared session leaves the issuer cookie in the system browser, so the
    /// next sign-in needs no password; an ephemeral one shows the login form again and leaves
    /// the system browser's jar alone.
    @Test("shared sessions sign in once (SSO); ephemeral ones log in every time")
    func sharedVersusEphemeral() async throws {
        try await withServedIssuer { issuer in
            let phone = Phone()
            let first = await phone.signIn(issuer, state: "first")
            let firstParameters = try callbackParameters(first)
            #expect(firstParameters["code"] != nil)
            #expect(submittedLogins(first) == 1)
            #expect(phone.browser.cookieJar.cookies().contains { $0.name == "signinsim_session" })

            let second = await phone.signIn(issuer, state: "second")
            let secondParameters = try callbackParameters(second)
            #expect(secondParameters["state"] == "second")
            #expect(secondParameters["code"] != nil)
            #expect(submittedLogins(second) == 0)
            #expect(second.trace.map(\.action) == [.reachedCallback], "\(second.trace)")

            let other = Phone()
            let ephemeral1 = await other.signIn(issuer, ephemeral: true, state: "e1")
            let ephemeral1Parameters = try callbackParameters(ephemeral1)
            #expect(ephemeral1Parameters["code"] != nil)
            #expect(submittedLogins(ephemeral1) == 1)
            let ephemeral2 = await other.signIn(issuer, ephemeral: true, state: "e2")
            let ephemeral2Parameters = try callbackParameters(ephemeral2)
            #expect(ephemeral2Parameters["code"] != nil)
            #expect(submittedLogins(ephemeral2) == 1)
            #expect(other.browser.cookieJar.cookies().isEmpty)
        }
    }

    /// Cancelling at the login page or at consent ends with canceledLogin, nothing sent back.
    @Test("cancel at login and at consent: canceledLogin", arguments: [WebUserScript.Point.login, .consent])
    func cancel(at point: WebUserScript.Point) async throws {
        try await withServedIssuer { issuer in
            let phone = Phone()
            let outcome = await phone.signIn(
                issuer,
                as: .signIn(
                    username: NativeApp.email, password: NativeApp.password, interruption: .cancel(at: point))
            )
            guard case .failure(let error) = outcome.result else {
                Issue.record("expected canceledLogin, got \(outcome.result)")
                return
            }
            #expect(error.code == .canceledLogin)
            #expect(outcome.trace.last?.action == .canceled)
            #expect(submittedLogins(outcome) == (point == .consent ? 1 : 0))
            #expect(!phone.context.isPresenting)
        }
    }
}
