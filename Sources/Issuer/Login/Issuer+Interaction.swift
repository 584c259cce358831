import Cryptography
import HTTPCore
import OAuthCore

/// What an interactive endpoint answers: decided under the state lock, rendered after it.
enum InteractionStep: Sendable {
    case loginPage(LoginPages.FormBinding, clientName: String, username: String?, error: String?)
    case consentPage(
        LoginPages.FormBinding, clientName: String, userLabel: String, scopes: [LoginPages.ScopeLine])
    /// A 302 to the client: a code, or an error it must hear about.
    case redirect(String)
    /// A 400 page: nothing can be sent to the client.
    case errorPage(title: String, message: String)
    /// RP-Initiated Logout without a redirect.
    case signedOutPage
    /// A `javascript` tenant's logout that the user has not confirmed yet: nothing has ended.
    case logoutQuestion(LoginPages.LogoutQuestion)
}

/// How an interactive endpoint answers a request.
enum InteractionAnswerFormat: Sendable, Equatable {
    /// Pages and redirects, for a browser that navigates.
    case page
    /// JSON, for the script of a `javascript` login page, which posts with `fetch`: where to go
    /// next, or what went wrong (`Issuer.jsonAnswer`).
    case json
}

/// The user and session a request goes on with.
struct SignedInUser: Sendable {
    var user: UserAccount
    var session: SessionRecord
    /// The hash of the session's cookie value, its key in `IssuerState.sessions`.
    var sessionHash: String
}

extension Issuer {
    /// Headers of every page and redirect of the sign-in interaction: nothing is cached (the
    /// redirects carry codes), framed (clickjacking) or leaked through `Referer`.
    static let interactionHeaders: HTTPHeaders = [
        "Cache-Control": "no-store",
        "Pragma": "no-cache",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy":
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    ]

    /// Whether the issuer is served over HTTPS, so that its cookies must be `Secure`.
    var servesHTTPS: Bool { identifier.prefix(6).lowercased() == "https:" }

    /// Renders a step, with any `Set-Cookie` fields: as a page or redirect, or as JSON for the
    /// script of a `javascript` login page.
    func render(_ step: InteractionStep, cookies: [String] = [], as format: InteractionAnswerFormat = .page)
        -> HTTPResponse
    {
        var headers = Issuer.interactionHeaders
        for cookie in cookies { headers.add(name: "Set-Cookie", value: cookie) }
        if format == .json { return jsonAnswer(step, headers: headers) }
        switch (step, tenant.pageStyle) {
        case (.loginPage(let binding, let clientName, let username, let error), .html):
            return .html(
                LoginPages.login(clientName: clientName, binding: binding, username: username, error: error),
                headers: headers)
        case (.loginPage(let binding, let clientName, let username, let error), .javascript):
            return scriptedPage(headers: headers) { nonce in
                ScriptedLoginPages.login(
                    clientName: clientName, binding: binding, username: username, error: error, nonce: nonce)
            }
        case (.consentPage(let binding, let clientName, let userLabel, let scopes), .html):
            return .html(
                LoginPages.consent(
                    clientName: clientName, userLabel: userLabel, scopes: scopes, binding: binding),
                headers: headers)
        case (.consentPage(let binding, let clientName, let userLabel, let scopes), .javascript):
            return scriptedPage(headers: headers) { nonce in
                ScriptedLoginPages.consent(
                    clientName: clientName, userLabel: userLabel, scopes: scopes, binding: binding,
                    nonce: nonce)
            }
        case (.logoutQuestion(let question), _):
            return scriptedPage(headers: headers) { nonce in
                ScriptedLoginPages.logoutQuestion(question, nonce: nonce)
            }
        case (.redirect(let location), _):
            return .redirect(to: location, headers: headers)
        case (.errorPage(let title, let message), _):
            return .html(LoginPages.error(title: title, message: message), status: 400, headers: headers)
        case (.signedOutPage, _):
            return .html(LoginPages.signedOut(), headers: headers)
        }
    }

    /// A page whose inline script runs under a nonce drawn for this answer alone (CSP Level 3
    /// §6.7.2.3): from the issuer's random source, so that seeded runs serve the same bytes.
    private func scriptedPage(headers: HTTPHeaders, _ page: (_ nonce: String) -> String) -> HTTPResponse {
        let nonce = randomValue(byteCount: 16)
        var headers = headers
        headers["Content-Security-Policy"] = ScriptedLoginPages.contentSecurityPolicy(nonce: nonce)
        return .html(page(nonce), headers: headers)
    }

    /// A step as the login page's script reads it: `{"location": URL}` (200) where the page flow
    /// would redirect or show the consent page, `{"error": message}` (400) where it would show
    /// the login page again or an error page, with the same headers and cookies as the page.
    func jsonAnswer(_ step: InteractionStep, headers: HTTPHeaders) -> HTTPResponse {
        switch step {
        case .redirect(let location):
            return .json(["location": .string(location)], headers: headers)
        case .consentPage(let binding, _, _, _):
            return .json(["location": .string(consentPageURL(binding.transactionID))], headers: headers)
        case .loginPage(_, _, _, let error):
            return .json(["error": .string(error ?? "Sign in to continue.")], status: 400, headers: headers)
        case .errorPage(_, let message):
            return .json(["error": .string(message)], status: 400, headers: headers)
        case .signedOutPage, .logoutQuestion:
            // Pages of the logout endpoint, which never answers JSON.
            return .json(
                ["error": .string("This answer is a page; ask for text/html.")], status: 406, headers: headers
            )
        }
    }

    /// `GET /u/consent` for a transaction at the consent stage: where the login page's script
    /// goes after a login that needs consent.
    func consentPageURL(_ transactionID: String) -> String {
        FormURLEncoding.appendingQuery(["transaction": transactionID], to: url(Path.consent))
    }

    /// How to answer an interactive request: JSON when a `javascript` tenant's page asks for it
    /// (`Accept: application/json`, RFC 9110 §12.5.1), pages otherwise; `html` tenants answer
    /// pages whatever is asked.
    func answerFormat(_ request: HTTPRequest) -> InteractionAnswerFormat {
        guard tenant.pageStyle == .javascript else { return .page }
        let asksForJSON = request.headers.values(for: "Accept").contains { field in
            field.split(separator: ",").contains { range in MediaType.essence(String(range)) == MediaType.json
            }
        }
        return asksForJSON ? .json : .page
    }

    /// Where an authorization error goes: the client's redirect URI with `error`,
    /// `error_description`, `state` and `iss` (RFC 6749 §4.1.2.1, RFC 9207 §2).
    func errorRedirect(_ error: OAuthError, redirectURI: String, state: String?) -> String {
        var parameters = FormParameters()
        parameters.append(OAuthParameter.error, error.code)
        parameters.append(OAuthParameter.errorDescription, Issuer.errorDescriptionText(error.description))
        if let state { parameters.append(OAuthParameter.state, state) }
        if Issuer.sendsIssuerParameter(deviations: tenant.deviations) {
            parameters.append("iss", identifier)
        }
        return FormURLEncoding.appendingQuery(parameters, to: redirectURI)
    }

    /// Whether authorization responses, codes and errors alike, carry `iss` (RFC 9207 §2): always,
    /// unless the tenant deviates (`no-iss-parameter`, `iss-parameter-omitted`).
    static func sendsIssuerParameter(deviations: Set<IssuerDeviation>) -> Bool {
        !deviations.contains(.noIssParameter) && !deviations.contains(.issParameterOmitted)
    }

    /// RFC 6749 §4.1.2.1 limits `error_description` to printable ASCII without `"` and `\`.
    static func errorDescriptionText(_ description: String) -> String {
        String(
            String.UnicodeScalarView(
                description.unicodeScalars.prefix(512).map { scalar in
                    (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\" ? scalar : "?"
                }))
    }

    /// The fields of a login or consent form: `application/x-www-form-urlencoded`, each field
    /// at most once. `nil` when the body is not such a form.
    static func interactionForm(_ request: HTTPRequest) -> [String: String]? {
        (try? request.formParameters())?.uniqueDictionary
    }

    /// The hashes of the session cookie values the request carries.
    static func sessionCookieHashes(_ request: HTTPRequest) -> [String] {
        SessionCookie.values(in: request.headers).map(Issuer.hash)
    }

    /// The page shown when a form's transaction cannot be used. One message for every cause,
    /// so that the page tells an attacker nothing about which check failed.
    static let expiredTransactionStep = InteractionStep.errorPage(
        title: "Sign-in expired",
        message: "This sign-in page has expired or was not opened from the app.")

    /// The transaction a form names, when it is live, at `stage`, and the form carries its
    /// CSRF token (compared in constant time).
    func transaction(
        _ id: String, csrfToken: String, stage: AuthorizationTransaction.Stage, in state: IssuerState,
        now: Int64
    ) -> AuthorizationTransaction? {
        guard let transaction = state.transactions[id], transaction.expiresAt > now,
            transaction.stage == stage,
            ConstantTime.equals(Array(csrfToken.utf8), Array(transaction.csrfToken.utf8))
        else { return nil }
        return transaction
    }

    /// The first live session that one of the cookie hashes opens, with its user.
    func liveSession(_ cookieHashes: [String], in state: IssuerState, now: Int64) -> SignedInUser? {
        for hash in cookieHashes {
            if let session = state.sessions[hash], session.expiresAt > now,
                let user = state.users[session.userID]
            {
                return SignedInUser(user: user, session: session, sessionHash: hash)
            }
        }
        return nil
    }

    /// A new session for a user who just signed in; the sessions of the cookies the browser
    /// sent end, so that a new login replaces the old one. Returns the cookie value too.
    func startSession(
        for user: UserAccount, replacing cookieHashes: [String], now: Int64, in state: inout IssuerState
    ) -> (signedIn: SignedInUser, cookieValue: String) {
        for hash in cookieHashes { state.sessions[hash] = nil }
        let cookieValue = randomValue()
        let hash = Issuer.hash(cookieValue)
        let session = SessionRecord(
            id: randomValue(byteCount: 16), userID: user.id, authTime: now,
            expiresAt: now + tenant.lifetimes.session)
        state.sessions[hash] = session
        return (SignedInUser(user: user, session: session, sessionHash: hash), cookieValue)
    }

    /// A new transaction for a validated request, waiting at the login stage.
    func startTransaction(
        _ request: AuthorizationRequest, client: ClientRegistration, now: Int64, in state: inout IssuerState
    ) -> AuthorizationTransaction {
        let transaction = AuthorizationTransaction(
            id: randomValue(), csrfToken: randomValue(), request: request, stage: .login, userID: nil,
            authTime: nil, sessionHash: nil, expiresAt: now + lifetimes(for: client).transaction)
        state.transactions[transaction.id] = transaction
        return transaction
    }

    /// With the user signed in: the consent page when consent is missing, else the code
    /// (`IssuerState.consentRequirement`).
    func proceed(
        _ transaction: AuthorizationTransaction, as signedIn: SignedInUser, clientName: String, now: Int64,
        in state: inout IssuerState
    ) -> InteractionStep {
        var transaction = transaction
        transaction.userID = signedIn.user.id
        transaction.authTime = signedIn.session.authTime
        transaction.sessionHash = signedIn.sessionHash
        switch state.consentRequirement(transaction.request, userID: signedIn.user.id) {
        case .granted:
            state.transactions[transaction.id] = nil
            return .redirect(issueCode(transaction.request, to: signedIn, now: now, in: &state))
        case .ask, .refused:
            // `.refused` needs `prompt=none`, which is answered before any transaction starts.
            break
        }
        transaction.stage = .consent
        // A new stage, a new token: a login form's token cannot approve anything.
        transaction.csrfToken = randomValue()
        state.transactions[transaction.id] = transaction
        return consentPage(transaction, user: signedIn.user, clientName: clientName)
    }

    /// The consent step of a transaction at the consent stage.
    func consentPage(_ transaction: AuthorizationTransaction, user: UserAccount, clientName: String)
        -> InteractionStep
    {
        let audience = transaction.request.audience ?? tenant.defaultAudience
        let scopes = transaction.request.scopes.map { scope in
            LoginPages.ScopeLine(
                scope: scope, explanation: LoginPages.explanation(of: scope, audience: audience))
        }
        return .consentPage(
            LoginPages.FormBinding(transactionID: transaction.id, csrfToken: transaction.csrfToken),
            clientName: clientName, userLabel: user.email ?? user.name ?? user.id, scopes: scopes)
    }

    /// Stores a new single-use code and returns the redirect that delivers it, with `state`
    /// and `iss` (RFC 6749 §4.1.2, RFC 9207 §2).
    func issueCode(
        _ request: AuthorizationRequest, to signedIn: SignedInUser, now: Int64, in state: inout IssuerState
    ) -> String {
        let code = randomValue()
        let lifetime =
            state.clients[request.clientID].map(lifetimes(for:))?.authorizationCode
            ?? tenant.lifetimes.authorizationCode
        state.codes[Issuer.hash(code)] = AuthorizationCodeRecord(
            clientID: request.clientID, redirectURI: request.redirectURI, userID: signedIn.user.id,
            scopes: request.scopes, audience: request.audience, nonce: request.nonce,
            codeChallenge: request.codeChallenge, codeChallengeMethod: request.codeChallengeMethod,
            authTime: signedIn.session.authTime,
            sessionID: signedIn.session.id, dpopKeyThumbprint: request.dpopKeyThumbprint,
            expiresAt: now + lifetime, redeemed: nil)
        var parameters = FormParameters()
        parameters.append(OAuthParameter.code, code)
        if var requestState = request.state {
            if state.faults.take(.callbackStateAltered) { requestState = Issuer.altered(requestState) }
            parameters.append(OAuthParameter.state, requestState)
        }
        if Issuer.sendsIssuerParameter(deviations: tenant.deviations) {
            parameters.append("iss", identifier)
        }
        return FormURLEncoding.appendingQuery(parameters, to: request.redirectURI)
    }

    /// A `state` changed in its last character, as a tampered redirect would carry it.
    static func altered(_ state: String) -> String {
        guard let last = state.last else { return "x" }
        return String(state.dropLast()) + (last == "A" ? "B" : "A")
    }

    /// The name the pages show for a client.
    func clientName(_ clientID: String, in state: IssuerState) -> String {
        state.clients[clientID]?.name ?? clientID
    }
}
