import HTTPCore
import JOSE
import OAuthCore

extension Issuer {
    /// `GET|POST /oidc/logout` (OpenID Connect RP-Initiated Logout 1.0 §2–§3).
    ///
    /// The browser's session always ends, even when the request is refused: the user asked to
    /// sign out, and an SSO cookie that outlives a botched logout is field bug 14. Only the
    /// session of the cookie the browser sent ends; a logout from another browser (an
    /// ephemeral one) leaves this one signed in, as at cookie-based OPs like Auth0. Redirection needs a client,
    /// named by `client_id` or by the hint's audience, whose registered post-logout redirect
    /// URIs include the one given, exactly.
    ///
    /// A `javascript` tenant asks first (`LogoutConfirmation`): until the user's answer comes
    /// back as a POST with `logout=yes`, nothing ends and the page asks, its form carrying the
    /// request's parameters. "No" goes where this request would have redirected, with its
    /// `state`, or stays.
    ///
    /// The `logout-ends-nothing` fault keeps the session and its cookie and answers as usual.
    func logout(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        let parameters = Issuer.logoutParameters(request)
        let confirmation = LogoutConfirmation(
            pageStyle: tenant.pageStyle, method: request.method, parameters: parameters)
        if confirmation == .ask {
            let location = try? logoutDestination(parameters, takingFaults: false).get()
            let question = LoginPages.LogoutQuestion(
                parameters: (parameters?.pairs ?? []).filter { $0.name != LogoutConfirmation.parameter },
                declineLocation: location)
            return render(.logoutQuestion(question))
        }
        let cookieHashes = Issuer.sessionCookieHashes(request)
        let endsNothing = state.withLock { state in
            sweepIfDue(&state, now: now)
            if state.faults.take(.logoutEndsNothing) { return true }
            for hash in cookieHashes { state.sessions[hash] = nil }
            return false
        }
        let clearing = endsNothing ? [] : [SessionCookie.clearing(secure: servesHTTPS)]
        switch logoutDestination(parameters, takingFaults: true) {
        case .success(let location?):
            return render(.redirect(location), cookies: clearing)
        case .success(nil):
            return render(.signedOutPage, cookies: clearing)
        case .failure(let refusal):
            return render(
                .errorPage(title: "Sign-out request refused", message: refusal.message), cookies: clearing)
        }
    }

    /// The parameters of a logout request (the query of a GET, the form of a POST), or `nil`
    /// when they cannot be read.
    static func logoutParameters(_ request: HTTPRequest) -> FormParameters? {
        request.method == .post ? try? request.formParameters() : try? request.queryParameters()
    }

    /// Where the browser goes after signing out: the client's post-logout redirect URI with
    /// `state`, or `nil` for the issuer's own page (`IssuerState.logoutDecision`).
    ///
    /// - Parameter takingFaults: whether a `logout-without-state` fault applies; not for the
    ///   "No" of a logout question, which is no sign-out.
    private func logoutDestination(_ parameters: FormParameters?, takingFaults: Bool)
        -> Result<String?, LogoutRefusal>
    {
        let facts: LogoutRequestFacts
        do throws(LogoutRefusal) {
            guard let parameters else { throw LogoutRefusal(message: "The sign-out request is malformed.") }
            facts = try LogoutRequestFacts(parameters.pairs)
        } catch {
            return .failure(error)
        }
        var hint = LogoutIDTokenHint.absent
        if let token = facts.idTokenHint {
            hint =
                verifiedIDTokenHint(token).map {
                    .verified(audiences: $0.audience?.values ?? [], authorizedParty: $0.authorizedParty)
                } ?? .notIssuedHere
        }
        let (decision, dropsState) = state.withLock { state -> (LogoutDecision, Bool) in
            let decision = state.logoutDecision(facts, hint: hint, deviations: tenant.deviations)
            // RP-Initiated Logout §3: `state` goes back as given, unless a fault drops it. A
            // logout without `state` has nothing to drop, so it leaves the fault for the next one.
            guard takingFaults, case .redirect(_, state: _?) = decision else { return (decision, false) }
            return (decision, state.faults.take(.logoutWithoutState))
        }
        switch decision {
        case .signedOutPage:
            return .success(nil)
        case .refused(let refusal):
            return .failure(refusal)
        case .redirect(let redirectURI, let logoutState):
            var response = FormParameters()
            if let logoutState, !dropsState { response.append(OAuthParameter.state, logoutState) }
            return .success(FormURLEncoding.appendingQuery(response, to: redirectURI))
        }
    }

    /// The claims of an ID token this issuer signed, with any key it still publishes (the
    /// active one or a retired one), or `nil`. Expiry is not checked: RP-Initiated Logout §2
    /// lets an expired ID token serve as a hint.
    private func verifiedIDTokenHint(_ hint: String) -> JWTClaims? {
        let keys = verificationKeys.keys(for: state.withLock { $0.keys })
        do {
            let jws = try JWS.parse(hint)
            // An access token (typ at+jwt, RFC 9068 §2.1) is not an ID token.
            if let type = jws.header.type, !type.caseInsensitiveEquals("JWT") { return nil }
            try jws.verify(with: keys)
            let claims = try JWTClaims(json: try jws.payloadObject())
            guard claims.issuer == identifier, claims.subject != nil, claims.audience != nil else {
                return nil
            }
            return claims
        } catch {
            return nil
        }
    }
}
