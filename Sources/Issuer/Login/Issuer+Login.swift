import Cryptography
import HTTPCore
import OAuthCore

extension Issuer {
    /// `POST /u/login`: checks the user's email and password for a transaction; on success a
    /// new session (and cookie) replaces any the browser had, and the flow goes on to consent
    /// or the code.
    ///
    /// A `javascript` tenant's login page posts with `fetch` and `Accept: application/json`:
    /// the same checks and cookie, answered as JSON (`jsonAnswer`).
    func submitLogin(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        let format = answerFormat(request)
        guard let form = Issuer.interactionForm(request), let transactionID = form["transaction"],
            let csrfToken = form["csrf"]
        else { return render(Issuer.expiredTransactionStep, as: format) }
        let username = form["username"] ?? ""
        let password = form["password"] ?? ""
        let cookieHashes = Issuer.sessionCookieHashes(request)
        let (step, cookie) = state.withLock { state -> (InteractionStep, String?) in
            sweepIfDue(&state, now: now)
            guard
                let transaction = transaction(
                    transactionID, csrfToken: csrfToken, stage: .login, in: state, now: now)
            else { return (Issuer.expiredTransactionStep, nil) }
            let clientName = clientName(transaction.request.clientID, in: state)
            guard let user = Issuer.authenticate(username: username, password: password, in: state) else {
                return (
                    .loginPage(
                        LoginPages.FormBinding(
                            transactionID: transaction.id, csrfToken: transaction.csrfToken),
                        clientName: clientName, username: username, error: "Wrong email or password."),
                    nil
                )
            }
            let (signedIn, cookieValue) = startSession(
                for: user, replacing: cookieHashes, now: now, in: &state)
            let step = proceed(transaction, as: signedIn, clientName: clientName, now: now, in: &state)
            return (step, SessionCookie.setting(cookieValue, secure: servesHTTPS))
        }
        return render(step, cookies: cookie.map { [$0] } ?? [], as: format)
    }

    /// `GET /u/consent?transaction=ID`: the consent page of a transaction at the consent stage,
    /// for the browser whose session it belongs to. The login page's script goes here after a
    /// login that needs consent, as Auth0's `/u/consent?state=` does; nothing changes.
    func showConsent(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        guard let query = (try? request.queryParameters())?.uniqueDictionary,
            let transactionID = query["transaction"]
        else { return render(Issuer.expiredTransactionStep) }
        let cookieHashes = Issuer.sessionCookieHashes(request)
        let step = state.withLock { state -> InteractionStep in
            sweepIfDue(&state, now: now)
            guard let transaction = state.transactions[transactionID], transaction.expiresAt > now,
                transaction.stage == .consent
            else { return Issuer.expiredTransactionStep }
            guard let sessionHash = transaction.sessionHash, cookieHashes.contains(sessionHash),
                let signedIn = liveSession([sessionHash], in: state, now: now)
            else {
                return .errorPage(
                    title: "Signed out", message: "The session this page belonged to has ended.")
            }
            return consentPage(
                transaction, user: signedIn.user,
                clientName: clientName(transaction.request.clientID, in: state))
        }
        return render(step)
    }

    /// `POST /u/consent`: `action=approve` records the grant and issues the code;
    /// `action=deny` sends `access_denied` back to the client (RFC 6749 §4.1.2.1), unless the
    /// `consent-refusal-ignored` fault is armed (`IssuerState.decideConsent`).
    ///
    /// The form must come from the browser whose session the consent page was shown to: its
    /// session cookie must still open that live session.
    func submitConsent(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        guard let form = Issuer.interactionForm(request), let transactionID = form["transaction"],
            let csrfToken = form["csrf"]
        else { return render(Issuer.expiredTransactionStep) }
        let action = form["action"]
        let cookieHashes = Issuer.sessionCookieHashes(request)
        let step = state.withLock { state -> InteractionStep in
            sweepIfDue(&state, now: now)
            guard
                let transaction = transaction(
                    transactionID, csrfToken: csrfToken, stage: .consent, in: state, now: now)
            else { return Issuer.expiredTransactionStep }
            // A session's hash names one user for good (a new login makes a new cookie), so the
            // session being the transaction's is enough to know the user is too.
            guard let sessionHash = transaction.sessionHash, cookieHashes.contains(sessionHash),
                let signedIn = liveSession([sessionHash], in: state, now: now)
            else {
                state.transactions[transaction.id] = nil
                return .errorPage(
                    title: "Signed out", message: "The session this page belonged to has ended.")
            }
            let request = transaction.request
            let decision = state.decideConsent(action: action, for: request, userID: signedIn.user.id)
            state.apply(decision, transactionID: transaction.id)
            switch decision {
            case .approve:
                return .redirect(issueCode(request, to: signedIn, now: now, in: &state))
            case .deny(let error):
                return .redirect(errorRedirect(error, redirectURI: request.redirectURI, state: request.state))
            case .invalidForm:
                return .errorPage(
                    title: "Invalid form", message: "The consent form must say approve or deny.")
            }
        }
        return render(step)
    }

    /// The password user with this email (case-insensitive) and password, compared in constant
    /// time. An unknown email costs the same comparison, so timing does not reveal accounts.
    static func authenticate(username: String, password: String, in state: IssuerState) -> UserAccount? {
        let user = state.user(email: username)
        let stored = user?.password
        let matches = ConstantTime.equals(
            SHA256.hash(Array(password.utf8)), SHA256.hash(Array((stored ?? "\u{0}no password").utf8)))
        guard let user, stored != nil, user.connection == "database", matches else { return nil }
        return user
    }
}
