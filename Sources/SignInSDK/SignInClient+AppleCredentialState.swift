extension SignInClient {
    /// Asks Apple what became of the Sign in with Apple session's user
    /// (`ASAuthorizationAppleIDProvider.getCredentialState(forUserID:completion:)` with the user
    /// identifier the session came with), and acts on the answer as Apple tells apps to:
    ///
    /// - `authorized`: nothing to do.
    /// - `revoked`, `notFound`: the user stopped using Apple ID with the app, or Apple revoked
    ///   the authorization; the session is cleared locally ("they should be signed out"). The
    ///   issuer is not called: Apple's side already ended, and a next Sign in with Apple is a
    ///   first authorization again, which shares the name once more.
    /// - `transferred`: the app moved to another developer team and the user's identifier must
    ///   be migrated (the app's server exchanges Apple's transfer identifier); the session is
    ///   kept, and the caller is told by the state it gets.
    ///
    /// Apple asks apps to check at launch, because the revocation notification reaches only a
    /// running app (`AppleAuthorizationProvider.observeCredentialRevocation`). The SDK leaves
    /// when to call it to the app, as Auth0.swift does: it costs a round trip to Apple.
    ///
    /// - Throws: `no_session` when nobody is signed in, `no_apple_user` for a session from the
    ///   web flow, `apple_authorization_failed` when Apple cannot answer (the session is kept),
    ///   `invalid_configuration` on a device without Sign in with Apple, `storage`.
    @discardableResult
    public func getCredentialState() async throws(SignInError) -> AppleIDCredentialState {
        _ = try configuredOptions()
        guard let provider = environment.appleAuthorization else {
            throw SignInError(.invalidConfiguration, "Sign in with Apple is not available on this device")
        }
        guard let session = try loadSession() else { throw SignInError(.noSession, "nobody is signed in") }
        guard let userID = session.appleUserID else {
            throw SignInError(
                .noAppleUser,
                "the session did not come from Sign in with Apple: there is no Apple user to check")
        }
        let state: AppleIDCredentialState
        do {
            state = try await provider.credentialState(forUserID: userID)
        } catch {
            throw SignInError(
                .appleAuthorizationFailed, "Apple's credential state is unknown: \(error.message)")
        }
        if state.endsSession { try endAppleSession(of: userID) }
        return state
    }

    /// What the SDK does when the system posts `credentialRevokedNotification`: the session that
    /// came from Sign in with Apple is cleared locally. A session from the web flow is not the
    /// Apple ID's, and stays.
    ///
    /// `configure(options:)` registers this with the Apple port; a host that observes the
    /// notification itself can call it.
    ///
    /// - Returns: whether a session was cleared.
    @discardableResult
    public func handleAppleCredentialRevoked() throws(SignInError) -> Bool {
        guard let userID = try loadSession()?.appleUserID else { return false }
        return try endAppleSession(of: userID)
    }

    /// Clears the stored session if it is still the one of this Apple user (another sign-in may
    /// have replaced it while Apple was asked).
    @discardableResult
    private func endAppleSession(of userID: String) throws(SignInError) -> Bool {
        guard try loadSession()?.appleUserID == userID else { return false }
        try clearSession()
        return true
    }

    /// Starts observing the revocation notification, once per SDK instance (an app's process).
    func observeAppleRevocation() {
        guard !observesAppleRevocation, let provider = environment.appleAuthorization else { return }
        observesAppleRevocation = true
        provider.observeCredentialRevocation { [weak self] in
            _ = try? await self?.handleAppleCredentialRevoked()
        }
    }
}
