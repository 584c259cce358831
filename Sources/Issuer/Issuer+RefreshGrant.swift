import HTTPCore
import OAuthCore

// The refresh token grant (RFC 6749 §6) with rotation and reuse detection (RFC 9700 §4.14.2).
extension Issuer {
    /// Exchanges a refresh token for new tokens and a successor refresh token, in one lock.
    ///
    /// The presented token becomes `rotated`; presenting it again revokes the whole family and
    /// fails with "refresh token replay detected", so of two concurrent refreshes exactly one
    /// succeeds (field bug 1). A tenant whose `refreshTokenReuse` is `.refuse` only refuses the
    /// old token and keeps the family.
    ///
    /// **Reuse grace** (`refreshReuseGrace` > 0): a rotated token presented again within that
    /// many seconds of its rotation, while its successor has not been used, is taken to mean the
    /// successor's response was lost (field bug 2). The successor is revoked and a fresh one
    /// issued; the grace is measured from the first rotation, so repeating the request does not
    /// extend it. Of two concurrent refreshes within the grace, the later response holds the
    /// live token. Once the successor has been used, the old token is a replay as usual.
    ///
    /// **DPoP**: a refresh token bound to a key (public clients, RFC 9449 §5) needs a proof with
    /// that key: without any proof the request fails `invalid_dpop_proof` (the client can fix
    /// that); with another key it fails `invalid_grant` (the grant is not this key's), and the
    /// family is left alone, since a thief without the key proves nothing about the owner.
    ///
    /// `scope` may narrow the grant for this access token; the successor keeps the original
    /// scope (RFC 6749 §6).
    ///
    /// A client with `rotatesRefreshTokens` off gets no successor: the response has no
    /// `refresh_token` and the presented one stays active (RFC 6749 §6 allows both).
    func refreshTokens(_ context: TokenRequestContext) throws(OAuthError) -> HTTPResponse {
        let presentedHash = TokenHash(of: try context.parameters.required("refresh_token"))
        let requested = context.parameters["scope"].map(ScopeList.parse)
        let (client, proof, now) = (context.client, context.proof, context.now)
        let lifetimes = lifetimes(for: client)
        // Random values and hashes before the lock, which every token request contends for.
        let accessTokenID = newAccessTokenID()
        let successor = newRefreshToken()

        let (pending, original) = try state.withLock {
            state throws(OAuthError) -> (PendingTokens, [String]) in
            sweepIfDue(&state, now: now)
            guard let record = state.refreshTokens[presentedHash],
                let family = state.families[record.familyID]
            else {
                throw .invalidGrant("the refresh token is invalid")
            }
            let stored = family.grant
            guard stored.clientID == client.id else {
                throw .invalidGrant("the refresh token was issued to another client")
            }
            guard record.expiresAt > now else { throw .invalidGrant("the refresh token expired") }
            if !state.refreshTokenBindings.isEmpty, let thumbprint = state.refreshTokenBindings[presentedHash]
            {
                guard let proof else {
                    throw .invalidDPoPProof(
                        "the refresh token is bound to a DPoP key; send a proof signed with it")
                }
                guard proof.thumbprint == thumbprint else {
                    throw .invalidGrant("the refresh token is bound to another DPoP key (RFC 9449 §5)")
                }
            }
            var lostSuccessor: TokenHash?
            var rotatedAt = now
            switch family.revokedReason == nil ? record.status : .revoked {
            case .active: break
            case .revoked:
                throw .invalidGrant("the refresh token was revoked")
            case .rotated(let at, let successorHash):
                let successorUnused =
                    state.refreshTokens[successorHash].map { state.refreshTokenStatus($0) == .active }
                    ?? false
                guard lifetimes.refreshReuseGrace > 0, now - at <= lifetimes.refreshReuseGrace,
                    successorUnused
                else {
                    if tenant.refreshTokenReuse == .refuse {
                        throw .invalidGrant("the refresh token was already used")
                    }
                    revokeGrant(
                        familyID: record.familyID, reason: .replayDetected, now: now,
                        in: &state)
                    throw .invalidGrant("refresh token replay detected")
                }
                lostSuccessor = successorHash
                rotatedAt = at
            }
            var granted = stored.scopes
            if let requested {
                if let extra = requested.first(where: { !stored.scopes.contains($0) }) {
                    throw .invalidScope(
                        "scope \(OAuthRequestParameters.quoted(extra)) was not granted to this refresh token;"
                            + " a refresh may only narrow the scope (RFC 6749 §6)")
                }
                granted = stored.scopes.filter(requested.contains)
            }
            guard let user = state.users[stored.userID] else {
                throw .invalidGrant("the user of the refresh token no longer exists")
            }
            var grant = TokenGrant(
                kind: .refresh, user: user, client: client, scopes: stored.scopes, audience: stored.audience,
                nonce: nil, authTime: stored.authTime, sessionID: stored.sessionID,
                dpopKeyThumbprint: proof?.thumbprint)
            if let lostSuccessor { state.refreshTokens[lostSuccessor]?.status = .revoked }
            var refreshToken: String?
            if client.rotatesRefreshTokens {
                refreshToken =
                    storeRefreshToken(successor, for: grant, familyID: record.familyID, now: now, in: &state)
                    .token
                state.refreshTokens[presentedHash]?.status = .rotated(
                    at: rotatedAt, successor: successor.hash)
            }
            recordAccessToken(
                accessTokenID, expiresAt: now + lifetimes.accessToken, familyID: record.familyID, now: now,
                in: &state)
            grant.scopes = granted
            return (
                PendingTokens(
                    grant: grant, accessTokenID: accessTokenID, refreshToken: refreshToken,
                    refreshFamilyID: record.familyID),
                stored.scopes
            )
        }
        let tokens = try signTokens(pending, now: now)
        return tokenResponse(
            tokens, requestedScopes: requested ?? original, grantedScopes: pending.grant.scopes)
    }
}
