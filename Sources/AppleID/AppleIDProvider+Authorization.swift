import JOSE

/// The device side: `ASAuthorizationAppleIDProvider` and the system sheet, with the user's
/// answer given in the request.
extension AppleIDProvider {
    /// Performs a native Sign in with Apple request.
    ///
    /// - The first authorization of an app by an account returns `fullName` and `email` for the
    ///   scopes asked; later ones return neither (field bug 10), until the user stops using
    ///   Apple ID with the app or the app revokes its tokens. The first authorization also fixes
    ///   whether the email is shared and whether it is the private relay address.
    /// - `user` (the token's `sub`) and the relay address are stable per developer team.
    /// - The identity token is RS256, `aud` the bundle id, `exp` = `iat` + 600, with `nonce`
    ///   exactly as the request gave it, `c_hash` of the code, and never a name.
    /// - The authorization code is single use and valid 5 minutes.
    ///
    /// The rules are `AppleAuthorizationRequest.admittedAccount` and
    /// `AppleProviderState.decideAuthorization`; this reads the state, asks them and applies
    /// the decision, then signs.
    ///
    /// - Throws: `.noAccount` (1000) without an Apple ID on the device; `.canceled` (1001) when
    ///   the user cancels; code `failed` (1004) for a malformed request or an app that belongs
    ///   to another team than the one named.
    public func authorize(_ request: AppleAuthorizationRequest) throws(AppleAuthorizationError)
        -> AppleIDCredential
    {
        let account = try request.admittedAccount()
        let now = clock.now()
        let code = AppleIdentifiers.token(kind: "c", random: random)
        let settings = AppleAuthorizationSettings(
            defaultTeamID: configuration.defaultTeamID, codeLifetime: configuration.authorizationCodeLifetime)
        let decision = try state.withLock {
            state throws(AppleAuthorizationError) -> AppleAuthorizationDecision in
            state.sweepIfDue(now: now)
            let decision = try state.decideAuthorization(
                request, account: account, settings: settings, now: now)
            state.apply(decision, codeKey: AppleIdentifiers.storageKey(code))
            return decision
        }
        let grant = decision.grant
        let claims = identityClaims(grant, now: now, nonce: request.nonce)
        let identityToken: String
        do {
            identityToken = try signIdentityToken(claims, binding: [.code: code])
        } catch {
            throw AppleAuthorizationError(.failed, "cannot sign the identity token: \(error.message)")
        }
        return AppleIDCredential(
            user: grant.subject, identityToken: identityToken, authorizationCode: code,
            fullName: decision.sharedFullName, email: decision.sharedEmail,
            realUserStatus: grant.realUserStatus,
            authorizedScopes: decision.authorizedScopes)
    }

    /// The user stops using Apple ID with the app (Settings › Apple ID › Sign in with Apple):
    /// its tokens die, the credential state becomes `AppleConfiguration.stateAfterStopUsing`, and
    /// the next authorization is a first one again (name and email are returned).
    ///
    /// - Returns: whether the account had authorized the app (an authorization ended), which is
    ///   when Apple tells the app's running instances (`credentialRevokedNotification`).
    @discardableResult
    public func stopUsingAppleID(email: String, bundleID: String) -> Bool {
        end(email: email, bundleID: bundleID, state: configuration.stateAfterStopUsing)
    }

    /// Apple ends the account's authorization of the app from its side, as when the app's server
    /// revokes the user's tokens (`POST /auth/revoke`, which does the same by token) or the user
    /// stops using Apple ID with the app on another device or on the web.
    ///
    /// Every token and pending code dies and the next authorization is a first one again (name
    /// and email are shared again). `ending` is the state the app then reads with
    /// `getCredentialState(forUserID:)`: Apple documents `revoked` as "the given user's
    /// authorization has been revoked and they should be signed out" and `notFound` as "the user
    /// hasn't established a relationship with Sign in with Apple".
    ///
    /// - Returns: whether the account had authorized the app (an authorization ended); an
    ///   account that never did is left alone (its state stays `notFound`).
    @discardableResult
    public func endAuthorization(email: String, bundleID: String, as ending: AppleAuthorizationEnding) -> Bool
    {
        end(email: email, bundleID: bundleID, state: ending.state)
    }

    private func end(email: String, bundleID: String, state ending: AppleCredentialState) -> Bool {
        let key = AppAuthorizationKey(account: AppleIdentifiers.accountKey(email), bundleID: bundleID)
        return state.withLock { state in
            guard state.authorizations[key] != nil else { return false }
            state.end(key, state: ending)
            return true
        }
    }

    /// The credential state of an account for an app: `notFound` if it never authorized it.
    public func credentialState(email: String, bundleID: String) -> AppleCredentialState {
        let key = AppAuthorizationKey(account: AppleIdentifiers.accountKey(email), bundleID: bundleID)
        return state.withLock { $0.authorizations[key]?.state } ?? .notFound
    }

    /// The credential state by user id, as apps ask (`getCredentialState(forUserID:)`): the
    /// user id must be the `sub` of the app's current team, else `notFound`.
    public func credentialState(forUserID userID: String, bundleID: String) -> AppleCredentialState {
        state.withLock { state in
            for (key, record) in state.authorizations where key.bundleID == bundleID {
                guard let account = state.accounts[key.account] else { continue }
                if AppleIdentifiers.subject(email: account.email, teamID: record.teamID) == userID {
                    return record.state
                }
            }
            return .notFound
        }
    }

    /// Moves an app to another developer team (an App Store app transfer).
    ///
    /// User identifiers are team-scoped ("Transferring your apps and users to another team"),
    /// so every authorized account's credential state becomes `transferred` for the user id it
    /// had under the old team ("the app has been transferred to a different team, and you need
    /// to migrate the user's identifier"), and its tokens die; the app's codes must then be
    /// redeemed with the new team's client secret. The next authorization is not a first one
    /// (the user already consented): it returns the new team's user id, no name and no email,
    /// and makes the state `authorized` again. Apple's `transfer_sub` migration is not simulated.
    ///
    /// A "transfer" to the team the app already belongs to changes nothing.
    ///
    /// - Returns: how many authorizations became `transferred`.
    @discardableResult
    public func transferApp(bundleID: String, toTeam teamID: String) -> Int {
        state.withLock { state in
            guard state.apps[bundleID] != teamID else { return 0 }
            state.apps[bundleID] = teamID
            var moved = 0
            for (key, record) in state.authorizations
            where key.bundleID == bundleID && record.state == .authorized {
                state.end(key, state: .transferred)
                moved += 1
            }
            return moved
        }
    }
}
