import HTTPCore
import JOSE
import OAuthCore

extension SignInClient {
    /// The stored session, refreshed first when it expires within the refresh margin; `nil`
    /// when no one is signed in (docs/sdk.md).
    public func getSession() async throws(SignInError) -> Session? {
        let options = try configuredOptions()
        guard let session = try loadSession() else { return nil }
        let now = environment.clock.now()
        guard session.expires(within: options.refreshMargin, now: now) else { return session }
        guard session.refreshToken != nil else {
            if session.expiresAt > now { return session }
            throw SignInError(.noRefreshToken, "the session expired and holds no refresh token")
        }
        return try await refresh(force: false)
    }

    /// A usable access token, refreshed when near expiry or when `forceRefresh`.
    public func getAccessToken(forceRefresh: Bool = false) async throws(SignInError) -> String {
        if forceRefresh { return try await refresh(force: true).accessToken }
        guard let session = try await getSession() else {
            throw SignInError(.noSession, "no one is signed in")
        }
        return session.accessToken
    }

    /// Refreshes now, whatever the expiry, and returns the new session.
    public func renewSession() async throws(SignInError) -> Session { try await refresh(force: true) }

    /// Runs a refresh under the profile's strategy (field bug 1).
    func refresh(force: Bool) async throws(SignInError) -> Session {
        let strategy = try configuredOptions().profile.refreshStrategy
        switch strategy {
        case .naive:
            return try await performRefresh(force: force, rereadFirst: false)
        case .singleFlight:
            // Concurrent callers share the refresh in flight; when it ends, the next call starts
            // a new one (so a failure lets the next caller retry).
            if let inFlightRefresh { return try await inFlightRefresh.value.get() }
            let task = environment.taskStarter.startTask {
                await self.refreshResult(force: force, rereadFirst: false)
            }
            inFlightRefresh = task
            let result = await task.value
            if inFlightRefresh == task { inFlightRefresh = nil }
            return try result.get()
        case .serialized:
            // One refresh at a time; each waiter re-reads storage, which the one before updated.
            let previous = serializedTail
            let task = environment.taskStarter.startTask {
                await previous?.value
                return await self.refreshResult(force: force, rereadFirst: true)
            }
            serializedTail = Task { _ = await task.value }
            return try await task.value.get()
        }
    }

    private func refreshResult(force: Bool, rereadFirst: Bool) async -> Result<Session, SignInError> {
        do throws(SignInError) {
            return .success(try await performRefresh(force: force, rereadFirst: rereadFirst))
        } catch {
            return .failure(error)
        }
    }

    /// One refresh-token grant (RFC 6749 §6) and what follows from its outcome.
    ///
    /// `invalid_grant` ends the session (the token was revoked, expired or reused); transport
    /// errors and other failures keep it, so the next call can retry. A response without
    /// `refresh_token` keeps the one held (unless the `drop-refresh-token` fault is on). With
    /// the `stale-refresh-copy` fault the token presented is the app's kept copy, and an
    /// `invalid_grant` for it is retried once with the stored token when that is another.
    func performRefresh(force: Bool, rereadFirst: Bool) async throws(SignInError) -> Session {
        let options = try configuredOptions()
        guard let session = try loadSession() else { throw SignInError(.noSession, "no one is signed in") }
        if rereadFirst, !force, !session.expires(within: options.refreshMargin, now: environment.clock.now())
        {
            return session
        }
        guard let storedToken = session.refreshToken else {
            throw SignInError(.noRefreshToken, "the session holds no refresh token")
        }
        var refreshToken = storedToken
        if options.profile.has(.staleRefreshCopy) {
            refreshToken = keptRefreshToken ?? storedToken
            keptRefreshToken = refreshToken
        }
        let response: TokenResponse
        do {
            do {
                response = try await refreshRequest(refreshToken, options: options)
            } catch  where Self.refusesGrant(error) && refreshToken != storedToken {
                // The kept copy was stale: the store holds the token the last rotation gave.
                response = try await refreshRequest(storedToken, options: options)
            }
        } catch  where Self.refusesGrant(error) {
            try? clearSession()
            throw SignInError(
                .sessionExpired,
                "the issuer refused the refresh token; the session is over: \(error.message)",
                oauthError: OAuthErrorCode.invalidGrant, status: error.status)
        }
        var claims = session.claims
        var idToken = session.idToken
        if let newIDToken = response.idToken {
            // OpenID Connect Core §12.2: a refreshed ID token is verified like the first, and
            // must be about the same user.
            let newClaims = try await verifyIDToken(newIDToken, nonce: nil, accessToken: response.accessToken)
            guard newClaims.subject == session.claims.subject else {
                throw SignInError(.idTokenInvalid, "the refreshed ID token names another subject")
            }
            claims = newClaims
            idToken = newIDToken
        }
        var refreshed = makeSession(
            response, idToken: idToken, previous: session, claims: claims, scopes: [],
            profile: options.profile)
        if options.profile.has(.dropRefreshToken) { refreshed.refreshToken = response.refreshToken }
        if options.profile.has(.persistLate) {
            deferredWrite = refreshed
            return refreshed
        }
        try store(refreshed, refreshed: true)
        return refreshed
    }

    /// One refresh-token request (RFC 6749 §6).
    private func refreshRequest(_ refreshToken: String, options: SignInOptions) async throws(SignInError)
        -> TokenResponse
    {
        try await tokenRequest(
            [
                OAuthParameter.grantType: GrantType.refreshToken,
                OAuthParameter.refreshToken: refreshToken,
                OAuthParameter.clientID: options.clientID,
            ],
            endpoint: "token:refresh_token")
    }

    /// Whether a token request failed because the issuer refused the grant (RFC 6749 §5.2).
    private static func refusesGrant(_ error: SignInError) -> Bool {
        error.code == .tokenRequestFailed && error.oauthError == OAuthErrorCode.invalidGrant
    }
}
