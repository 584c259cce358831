import HTTPCore
import JOSE
import OAuthCore

extension Issuer {
    /// Parameters of RP-Initiated Logout 1.0 §2 that may each be sent at most once.
    static let logoutParameters: Set<String> = [
        OAuthParameter.idTokenHint, OAuthParameter.clientID, OAuthParameter.postLogoutRedirectURI,
        OAuthParameter.state, "logout_hint", OAuthParameter.uiLocales,
    ]

    /// `GET|POST /oidc/logout` (OpenID Connect RP-Initiated Logout 1.0 §2–§3).
    ///
    /// The browser's session always ends, even when the request is refused: the user asked to
    /// sign out, and an SSO cookie that outlives a botched logout is field bug 14. Only the
    /// session of the cookie the browser sent ends; a logout from another browser (an
    /// ephemeral one) leaves this one signed in, as at cookie-based OPs like Auth0. Redirection needs a client,
    /// named by `client_id` or by the hint's audience, whose registered post-logout redirect
    /// URIs include the one given, exactly.
    func logout(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        let cookieHashes = Issuer.sessionCookieHashes(request)
        state.withLock { state in
            sweepIfDue(&state, now: now)
            for hash in cookieHashes { state.sessions[hash] = nil }
        }
        let clearing = [SessionCookie.clearing(secure: servesHTTPS)]
        switch logoutDestination(request) {
        case .success(let location?):
            return render(.redirect(location), cookies: clearing)
        case .success(nil):
            return render(.signedOutPage, cookies: clearing)
        case .failure(let refusal):
            return render(
                .errorPage(title: "Sign-out request refused", message: refusal.message), cookies: clearing)
        }
    }

    /// Why a logout request cannot be followed as asked.
    struct LogoutRefusal: Error {
        var message: String
    }

    /// Where the browser goes after signing out: the client's post-logout redirect URI with
    /// `state`, or `nil` for the issuer's own page.
    private func logoutDestination(_ request: HTTPRequest) -> Result<String?, LogoutRefusal> {
        let parameters: FormParameters
        do {
            parameters =
                request.method == .post ? try request.formParameters() : try request.queryParameters()
        } catch {
            return .failure(LogoutRefusal(message: "The sign-out request is malformed."))
        }
        // As for authorization requests, an empty parameter counts as absent (RFC 6749 §3.1).
        let pairs = parameters.pairs.filter { !$0.value.isEmpty }
        var seen = Set<String>()
        for pair in pairs where Issuer.logoutParameters.contains(pair.name) {
            guard seen.insert(pair.name).inserted else {
                return .failure(LogoutRefusal(message: "The parameter \(pair.name) is given more than once."))
            }
        }
        func single(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

        var hintAudiences: [String]?
        var hintAuthorizedParty: String?
        if let hint = single(OAuthParameter.idTokenHint) {
            guard let claims = verifiedIDTokenHint(hint) else {
                return .failure(LogoutRefusal(message: "The id_token_hint was not issued by this issuer."))
            }
            hintAudiences = claims.audience?.values
            hintAuthorizedParty = claims.authorizedParty
        }

        // RP-Initiated Logout §2: when both are given, client_id must be the hint's audience.
        var clientID = single(OAuthParameter.clientID)
        if let audiences = hintAudiences {
            if let given = clientID {
                guard audiences.contains(given) else {
                    return .failure(
                        LogoutRefusal(message: "The client_id is not the audience of the id_token_hint."))
                }
            } else {
                clientID = audiences.count == 1 ? audiences[0] : hintAuthorizedParty
            }
        }
        let client = clientID.flatMap { id in state.withLock { $0.clients[id] } }
        if single(OAuthParameter.clientID) != nil, client == nil {
            return .failure(LogoutRefusal(message: "No application with this client_id is registered."))
        }

        guard let redirectURI = single(OAuthParameter.postLogoutRedirectURI) else { return .success(nil) }
        guard let client else {
            return .failure(
                LogoutRefusal(
                    message:
                        "A post_logout_redirect_uri needs client_id or id_token_hint to name the application."
                ))
        }
        guard client.postLogoutRedirectURIs.contains(redirectURI) else {
            return .failure(
                LogoutRefusal(message: "The post_logout_redirect_uri is not registered for this application.")
            )
        }
        var response = FormParameters()
        // RP-Initiated Logout §3: `state` goes back as given, unless a fault drops it. A logout
        // without `state` has nothing to drop, so it leaves the fault for the next one.
        if let logoutState = single(OAuthParameter.state),
            !state.withLock({ $0.faults.take(.logoutWithoutState) })
        {
            response.append(OAuthParameter.state, logoutState)
        }
        return .success(FormURLEncoding.appendingQuery(response, to: redirectURI))
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
