import HTTPCore
import JOSE
import OAuthCore

extension SignInClient {
    /// Signs in through the web sheet: authorize with PKCE S256, `state` and `nonce`, then the
    /// callback, the code exchange and the ID token checks (docs/sdk.md).
    public func signIn(options request: SignInRequestOptions = SignInRequestOptions())
        async throws(SignInError)
        -> Session
    {
        let options = try configuredOptions()
        try SignInOptions.checkAuthorizationParameters(request.additionalParameters)
        if let maxAge = request.maxAge, maxAge < 0 {
            throw SignInError(.invalidConfiguration, "max_age must not be negative, found \(maxAge)")
        }
        guard let agent = environment.webAuthentication else {
            throw SignInError(.invalidConfiguration, "no web authentication user agent is available")
        }
        flushDeferredWrite()
        if let stale = activeTransaction {
            // Field bug 5: a sheet lost to backgrounding never called back. The correct SDK
            // dismisses it and starts over; the faulty one refuses until the app restarts.
            if options.profile.has(.staleTransaction) {
                throw SignInError(
                    .transactionActiveAlready, "a web authentication transaction is active already")
            }
            pending.authorizationAbandoned(state: stale)
            activeTransaction = nil
            agent.cancelActiveSession()
        }
        let metadata = try await providerMetadata()
        let record = PendingAuthorization(
            state: randomToken(), nonce: randomToken(), codeVerifier: randomToken(),
            redirectURI: options.redirectURI, scopes: request.scopes ?? options.scopes,
            createdAt: environment.clock.now())
        let url = Self.authorizeURL(
            options: options, record: record, request: request, endpoint: metadata.authorizationEndpoint)
        pending.authorizationStarted(record, now: record.createdAt)

        // Field bug 6: presenting from a scene that is not foreground-active fails at once.
        if !options.profile.has(.presentWhileInactive), !agent.canPresent() {
            guard await agent.waitUntilPresentable() else {
                pending.authorizationAbandoned(state: record.state)
                throw SignInError(
                    .presentationFailed, "no foreground-active scene to present the sign-in sheet")
            }
        }
        activeTransaction = record.state
        let callback: String
        do {
            callback = try await agent.authenticate(
                WebAuthenticationRequest(
                    url: url, redirectURI: options.redirectURI,
                    prefersEphemeralSession: Self.usesEphemeralWebSession(options)))
        } catch {
            if activeTransaction == record.state { activeTransaction = nil }
            pending.authorizationAbandoned(state: record.state)
            if error.kind == .canceledLogin, options.profile.has(.cancelNeverResolves) {
                // Field bug 7: the dismissal callback is dropped, so the call only ends when its
                // task is cancelled (the app is killed).
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
            throw Self.mapWebFailure(error, profile: options.profile)
        }
        if activeTransaction == record.state { activeTransaction = nil }
        return try await handleRedirect(url: callback)
    }

    /// The authorization request URL this client would open for `request`, with a fresh
    /// `state`, `nonce` and PKCE verifier that it keeps nowhere: a request whose answer the app
    /// will never redeem (OpenID Connect Core §3.1.2.1 `prompt=none` asks whether the issuer
    /// still holds a session, and its code, if any, is left to expire), as AppAuth's
    /// `OIDAuthorizationRequest.authorizationRequestURL` builds one without presenting it.
    public func unredeemedAuthorizationURL(_ request: SignInRequestOptions) async throws(SignInError)
        -> String
    {
        let options = try configuredOptions()
        try SignInOptions.checkAuthorizationParameters(request.additionalParameters)
        let metadata = try await providerMetadata()
        let record = PendingAuthorization(
            state: randomToken(), nonce: randomToken(), codeVerifier: randomToken(),
            redirectURI: options.redirectURI, scopes: request.scopes ?? options.scopes,
            createdAt: environment.clock.now())
        return Self.authorizeURL(
            options: options, record: record, request: request, endpoint: metadata.authorizationEndpoint)
    }

    /// The authorization request URL (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID Connect Core
    /// §3.1.2.1): the parameters the SDK owns, then `audience`, `prompt` (the configured rule or
    /// the call's), `login_hint`, `ui_locales`, `organization`, `max_age`, `acr_values` when
    /// set, then the extra parameters by name. The call's values replace the configured ones.
    static func authorizeURL(
        options: SignInOptions, record: PendingAuthorization, request: SignInRequestOptions, endpoint: String
    ) -> String {
        var parameters = FormParameters()
        parameters.append(OAuthParameter.responseType, "code")
        parameters.append(OAuthParameter.clientID, options.clientID)
        parameters.append(OAuthParameter.redirectURI, record.redirectURI)
        parameters.append(OAuthParameter.scope, record.scopes.joined(separator: " "))
        parameters.append(OAuthParameter.state, record.state)
        parameters.append(OAuthParameter.nonce, record.nonce)
        parameters.append(OAuthParameter.codeChallenge, PKCE.challenge(for: record.codeVerifier))
        parameters.append(OAuthParameter.codeChallengeMethod, PKCE.method)
        let prompt = (request.prompt ?? options.prompt).resolved(scopes: record.scopes)
        let optional: [(String, String?)] = [
            (OAuthParameter.audience, options.audience),
            (OAuthParameter.prompt, prompt.isEmpty ? nil : prompt.joined(separator: " ")),
            (OAuthParameter.loginHint, request.loginHint ?? options.loginHint),
            (OAuthParameter.uiLocales, options.uiLocales),
            ("organization", options.organization),
            (OAuthParameter.maxAge, (request.maxAge ?? options.maxAge).map(String.init)),
            ("acr_values", options.acrValues),
        ]
        for case (let name, let value?) in optional { parameters.append(name, value) }
        let extra = options.authorizationParameters.merging(request.additionalParameters) { $1 }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { parameters.append(name, value) }
        return FormURLEncoding.appendingQuery(parameters, to: endpoint)
    }

    /// Completes a sign-in from the callback URL: `state` matched and consumed, RFC 9207 `iss`
    /// checked, the code exchanged, the ID token verified, then the session stored.
    public func handleRedirect(url: String) async throws(SignInError) -> Session {
        let options = try configuredOptions()
        let metadata = try await providerMetadata()
        let callback = try AuthorizationCallback(url: url, redirectURI: options.redirectURI)
        let record = try pendingAuthorization(for: callback, profile: options.profile)
        if metadata.authorizationResponseIssParameterSupported {
            try Self.checkIssuer(of: callback, against: metadata.issuer)
        }
        if let error = callback.error {
            throw Self.authorizationError(error, description: callback.errorDescription)
        }
        guard let code = callback.code, !code.isEmpty else {
            throw SignInError(.invalidCallback, "the callback has neither code nor error")
        }
        let response = try await exchange(code, for: record, options: options)
        guard let idToken = response.idToken else {
            throw SignInError(.invalidTokenResponse, "the code exchange returned no id_token")
        }
        // The session's expiry counts from now, before verification.
        let receivedAt = environment.clock.now()
        if options.profile.has(.persistBeforeVerify) {
            try storeUnverified(
                response, idToken: idToken, scopes: record.scopes, profile: options.profile,
                receivedAt: receivedAt)
        }
        // OpenID Connect Core §3.1.3.7: the ID token's signature, issuer, audience, times and
        // nonce, and the hashes that bind it to the access token and the code.
        let claims = try await verifyIDToken(
            idToken, nonce: record.nonce, accessToken: response.accessToken, code: code)
        let session = makeSession(
            response, idToken: idToken, previous: nil, claims: claims, scopes: record.scopes,
            profile: options.profile, receivedAt: receivedAt)
        try store(session)
        return session
    }

    /// The pending sign-in the callback's `state` names, consumed so that it matches once
    /// (RFC 6749 §10.12: the state binds the response to the request this app made).
    private func pendingAuthorization(
        for callback: AuthorizationCallback, profile: BehaviorProfile
    ) throws(SignInError) -> PendingAuthorization {
        guard let state = callback.state else {
            // Field bug 8. An error response without state is still the issuer's answer: report
            // the error itself; there is nothing to exchange, so nothing is at risk. A callback
            // with no response at all lost it on the way (a hop that dropped the query): that
            // is what to report, not the state it does not carry. A code without state is
            // refused as what it is.
            if !profile.has(.errorWithoutStateIsStateError) {
                if let error = callback.error {
                    throw Self.authorizationError(error, description: callback.errorDescription)
                }
                if callback.code == nil {
                    throw SignInError(
                        .invalidCallback,
                        "the callback carries no authorization response (no code, error or state): "
                            + "it was lost on the way to the app")
                }
            }
            throw SignInError(.missingState, "the callback has no state")
        }
        guard let record = pending.callbackReceived(state: state) else {
            throw SignInError(
                .stateMismatch, "the callback's state matches no pending sign-in (unknown or used)")
        }
        return record
    }

    /// RFC 9207 §2.4: the callback's `iss`, compared as a simple string with the issuer from
    /// discovery, for an issuer that advertises it. An error response without `iss`
    /// (django-oauth-toolkit sends its denials so) carries no code to steal, so it is reported
    /// as the error it is; a code never passes without.
    private static func checkIssuer(
        of callback: AuthorizationCallback, against expected: String
    ) throws(SignInError) {
        let errorWithoutIssuer = callback.issuer == nil && callback.error != nil && callback.code == nil
        guard let issuer = callback.issuer ?? (errorWithoutIssuer ? expected : nil) else {
            throw SignInError(.issuerMismatch, "the issuer advertises RFC 9207 but the callback has no iss")
        }
        guard issuer == expected else {
            throw SignInError(
                .issuerMismatch, "the callback's iss \"\(issuer.prefix(200))\" is not \(expected)")
        }
    }

    /// The code exchange (RFC 6749 §4.1.3), with the PKCE verifier of the pending sign-in
    /// (RFC 7636 §4.5) and the same `redirect_uri` as the authorization request.
    private func exchange(
        _ code: String, for record: PendingAuthorization, options: SignInOptions
    ) async throws(SignInError) -> TokenResponse {
        var parameters: FormParameters = [
            OAuthParameter.grantType: GrantType.authorizationCode, OAuthParameter.clientID: options.clientID,
            OAuthParameter.code: code,
            OAuthParameter.redirectURI: record.redirectURI, OAuthParameter.codeVerifier: record.codeVerifier,
        ]
        if let audience = options.audience { parameters.append(OAuthParameter.audience, audience) }
        return try await tokenRequest(parameters, endpoint: "token:authorization_code")
    }

    /// The `persist-before-verify` fault: stores the credentials before the ID token is
    /// checked, with its claims read unchecked. A token that cannot even be read fails here, as
    /// verification would.
    private func storeUnverified(
        _ response: TokenResponse, idToken: String, scopes: [String], profile: BehaviorProfile,
        receivedAt: Int64
    ) throws(SignInError) {
        let unverified: JWTClaims
        do {
            unverified = try Session.unverifiedClaims(of: idToken)
        } catch {
            throw SignInError(.idTokenInvalid, "the ID token was rejected: \(error)")
        }
        try store(
            makeSession(
                response, idToken: idToken, previous: nil, claims: unverified, scopes: scopes,
                profile: profile, receivedAt: receivedAt))
    }

    /// Builds a session from a token response and the claims of its ID token (verified, but
    /// for the `persist-before-verify` fault). The expiry is counted on the device clock from
    /// `expires_in`, from `receivedAt` (by default now); the `strict-clock` fault reads the
    /// access token's own `exp` instead.
    func makeSession(
        _ response: TokenResponse, idToken: String, previous: Session?, claims: JWTClaims, scopes: [String],
        profile: BehaviorProfile, receivedAt: Int64? = nil
    ) -> Session {
        let now = receivedAt ?? environment.clock.now()
        var expiresAt = now + (response.expiresIn ?? 3600)
        if profile.has(.strictClock),
            let exp = (try? JWT.decodeUnverified(response.accessToken))?.claims["exp"]?.int64Value
        {
            expiresAt = exp
        }
        return Session(
            accessToken: response.accessToken, tokenType: response.tokenType, idToken: idToken,
            refreshToken: response.refreshToken ?? previous?.refreshToken, expiresAt: expiresAt,
            scope: response.scope ?? previous?.scope ?? scopes.joined(separator: " "),
            claims: claims, appleUserID: previous?.appleUserID)
    }

    /// Whether the sheet (sign-in and sign-out alike) uses a fresh cookie jar: the app's choice,
    /// unless the `shared-web-session` fault (field bug 14) shares the system browser's.
    static func usesEphemeralWebSession(_ options: SignInOptions) -> Bool {
        options.prefersEphemeralSession && !options.profile.has(.sharedWebSession)
    }

    /// An error response (RFC 6749 §4.1.2.1) as the app sees it, the issuer's code kept.
    static func authorizationError(_ error: String, description: String?) -> SignInError {
        let detail = description.map { ": \($0.prefix(300))" } ?? ""
        return SignInError(.authorizationDenied, "the issuer answered \(error)\(detail)", oauthError: error)
    }

    static func mapWebFailure(_ failure: WebAuthenticationFailure, profile: BehaviorProfile) -> SignInError {
        switch failure.kind {
        case .canceledLogin:
            if profile.has(.misreadCancel) {
                // Field bug 7: the cancel surfaces as an unexplained failure.
                return SignInError(.webSessionFailed, "the operation couldn't be completed")
            }
            return SignInError(.canceledLogin, "the user canceled the sign-in")
        case .presentationContextInvalid:
            return SignInError(.presentationFailed, failure.message)
        case .alreadyPresenting:
            return SignInError(.transactionActiveAlready, failure.message)
        case .failed:
            return SignInError(.webSessionFailed, failure.message)
        }
    }
}
