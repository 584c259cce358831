import HTTPCore
import OAuthCore

// The browser-facing half of the issuer: RFC 6749 §4.1, OpenID Connect Core §3.1.2, RFC 7636,
// RFC 8252, RFC 9207. Login and consent forms are in Issuer+Login.swift, logout in
// Issuer+Logout.swift.
extension Issuer {
    /// `GET /authorize`: validates the request (or the one pushed under its `request_uri`,
    /// RFC 9126 §4), then shows the login page, the consent page, or redirects with a code,
    /// depending on the browser's session and the user's consents.
    func authorize(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        let query: FormParameters
        do {
            query = try request.queryParameters()
        } catch {
            return render(
                .errorPage(
                    title: "Invalid sign-in request", message: "The request's query string is malformed."))
        }
        // RFC 9126 §4: a request_uri stands for the parameters pushed under it.
        var parameters = query
        var pushed = false
        switch resolvePushedRequest(query, now: now) {
        case nil: break
        case .use(let pushedParameters)?:
            parameters = pushedParameters
            pushed = true
        case .refused(let error)?:
            return render(.errorPage(title: "Invalid sign-in request", message: Issuer.errorPageText(error)))
        }
        let validated: (request: AuthorizationRequest, client: ClientRegistration)
        do throws(AuthorizationRequestRejection) {
            validated = try AuthorizationRequest.validate(parameters, tenant: tenant) { id in
                state.withLock { $0.clients[id] }
            }
            // RFC 9126 §5: once the client and its redirect URI are known, a request that
            // should have been pushed is refused at that URI.
            if let refusal = tenant.pushedAuthorizationRequests.refusal(
                pushed: pushed, deviations: tenant.deviations)
            {
                throw .redirect(
                    refusal, redirectURI: validated.request.redirectURI, state: validated.request.state)
            }
        } catch {
            switch error {
            case .untrustedRedirect(let message):
                return render(.errorPage(title: "Invalid sign-in request", message: message))
            case .redirect(let error, _, _) where tenant.deviates(.errorsShownAsPage):
                // `errors-shown-as-page`: the client never hears of it (RFC 6749 §4.1.2.1).
                return render(
                    .errorPage(title: "Invalid sign-in request", message: Issuer.errorPageText(error)))
            case .redirect(let error, let redirectURI, let state):
                return render(.redirect(errorRedirect(error, redirectURI: redirectURI, state: state)))
            }
        }
        let (authorization, client) = validated
        let cookieHashes = Issuer.sessionCookieHashes(request)
        let step = state.withLock { state in
            sweepIfDue(&state, now: now)
            return authorizationStep(
                authorization, client: client, cookieHashes: cookieHashes, now: now, in: &state)
        }
        return render(step)
    }

    /// What a valid authorization request leads to (OpenID Connect Core §3.1.2.3–§3.1.2.4).
    private func authorizationStep(
        _ request: AuthorizationRequest, client: ClientRegistration, cookieHashes: [String], now: Int64,
        in state: inout IssuerState
    ) -> InteractionStep {
        var signedIn = liveSession(cookieHashes, in: state, now: now)
        if let current = signedIn,
            request.forcesLogin || !request.accepts(authTime: current.session.authTime, now: now)
        {
            signedIn = nil
        }
        // prompt=none: answer at once, without any page (Core §3.1.2.1; errors of §3.1.2.6).
        if request.prompt.contains("none") {
            guard let signedIn else {
                return .redirect(
                    errorRedirect(
                        OAuthError("login_required", "prompt=none was given and the user is not signed in"),
                        redirectURI: request.redirectURI, state: request.state))
            }
            if case .refused(let error) = state.consentRequirement(request, userID: signedIn.user.id) {
                return .redirect(errorRedirect(error, redirectURI: request.redirectURI, state: request.state))
            }
            return .redirect(issueCode(request, to: signedIn, now: now, in: &state))
        }
        let transaction = startTransaction(request, client: client, now: now, in: &state)
        guard let signedIn else {
            return .loginPage(
                LoginPages.FormBinding(transactionID: transaction.id, csrfToken: transaction.csrfToken),
                clientName: client.name, username: request.loginHint, error: nil)
        }
        return proceed(transaction, as: signedIn, clientName: client.name, now: now, in: &state)
    }

    /// What the page of an authorization error says when a tenant shows errors to the user
    /// (`errors-shown-as-page`): the code and description that the redirect would have carried.
    static func errorPageText(_ error: OAuthError) -> String {
        "The request was refused: \(error.code) (\(errorDescriptionText(error.description)))."
    }
}
