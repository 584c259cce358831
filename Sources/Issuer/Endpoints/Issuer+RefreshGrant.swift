import Cryptography
import HTTPCore
import JOSE
import OAuthCore

// The refresh token grant (RFC 6749 §6) with rotation and reuse detection (RFC 9700 §4.14.2),
// as the client's refresh rotation profile has it (`RefreshRotation`).
extension Issuer {
    /// Exchanges a refresh token for new tokens and, when the client's profile rotates, a
    /// successor refresh token, all in one lock.
    ///
    /// What a token that was already exchanged gets is the profile's rule (`RefreshRotation`
    /// describes each, with its source). The `.serverError` answer to a concurrent rotation
    /// (`ConcurrentRefresh`) comes before the profile's rule, as the real issuer's transaction
    /// fails before it gets that far; it changes nothing.
    ///
    /// **DPoP**: a refresh token bound to a key (public clients, RFC 9449 §5) needs a proof with
    /// that key: without any proof the request fails `invalid_dpop_proof` (the client can fix
    /// that); with another key it fails `invalid_grant` (the grant is not this key's), and the
    /// family is left alone, since a thief without the key proves nothing about the owner.
    ///
    /// `scope` may narrow the grant for this access token; the successor keeps the original
    /// scope (RFC 6749 §6).
    func refreshTokens(_ context: TokenRequestContext) throws(OAuthError) -> HTTPResponse {
        let presentedToken = try context.parameters.required(OAuthParameter.refreshToken)
        let presentedHash = TokenHash(of: presentedToken)
        let requested = context.parameters[OAuthParameter.scope].map(ScopeList.parse)
        let (client, proof, now) = (context.client, context.proof, context.now)
        let lifetimes = lifetimes(for: client)
        // Random values and hashes before the lock, which every token request contends for.
        let unmarkedAccessTokenID = newAccessTokenID()

        let facts = RefreshRequestFacts(
            presentedToken: presentedToken, presentedHash: presentedHash, requestedScopes: requested,
            clientID: client.id, proofThumbprint: proof?.thumbprint, rotation: refreshRotation(for: client),
            refreshTokenLifetime: lifetimes.refreshToken, freshSeed: newRefreshToken(),
            successorKey: successorKey, deviations: tenant.deviations)

        let outcome = try state.withLock { state throws(OAuthError) -> RefreshOutcome in
            sweepIfDue(&state, now: now)
            guard case .tokens(let decided) = try state.refresh(facts, now: now) else {
                return .concurrentFailure
            }
            let stored = decided.grant
            var grant = TokenGrant(
                kind: .refresh, user: decided.user, client: client, scopes: stored.scopes,
                audience: stored.audience, nonce: nil, authTime: stored.authTime, sessionID: stored.sessionID,
                dpopKeyThumbprint: proof?.thumbprint)
            let refreshToken = commit(
                decided.exchange, presented: presentedHash, record: decided.record, grant: grant, now: now,
                in: &state)
            let accessTokenID = recordAccessToken(
                unmarkedAccessTokenID, expiresAt: now + lifetimes.accessToken,
                familyID: decided.record.familyID,
                in: &state)
            grant.scopes = decided.grantedScopes
            return .tokens(
                PendingTokens(
                    grant: grant, accessTokenID: accessTokenID, refreshToken: refreshToken,
                    refreshFamilyID: decided.record.familyID),
                original: stored.scopes)
        }
        switch outcome {
        case .concurrentFailure:
            return Issuer.concurrentRefreshPage
        case .tokens(let pending, let original):
            let tokens = try signTokens(pending, now: now)
            return tokenResponse(
                tokens, requestedScopes: requested ?? original, grantedScopes: pending.grant.scopes)
        }
    }

    /// Django's default page for an unhandled exception with `DEBUG` off (its `500.html`
    /// fallback), in the embedded issuer's words: status 500, HTML, no OAuth error.
    static let concurrentRefreshPage = HTTPResponse.html(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n  <title>Server Error (500)</title>\n</head>\n"
            + "<body>\n  <h1>Server Error (500)</h1><p></p>\n</body>\n</html>\n",
        status: 500)

    /// Stores what `exchange` issues and marks the presented token; the refresh token to answer.
    /// A token that stops being live is retired (`IssuerState.retireRefreshToken`), which keeps
    /// a family's memory bounded however often it refreshes.
    private func commit(
        _ exchange: RefreshExchange, presented: TokenHash, record: RefreshTokenRecord, grant: TokenGrant,
        now: Int64, in state: inout IssuerState
    ) -> String? {
        let seed: RefreshTokenSeed
        var rotatedAt = now
        switch exchange {
        case .keep:
            return nil
        case .replay(let token):
            return token
        case .successor(let fresh):
            seed = fresh
        case .again(let fresh, let at, let lost):
            seed = fresh
            rotatedAt = at
            if let lost, let successor = state.refreshTokens[lost] {
                state.refreshTokens[lost]?.status = .revoked
                if successor.status == .active { state.retireRefreshToken(lost, familyID: record.familyID) }
            }
        }
        let stored = storeRefreshToken(seed, for: grant, familyID: record.familyID, now: now, in: &state)
        guard let presentedRecord = state.refreshTokens[presented] else { return stored.token }
        state.refreshTokens[presented]?.status = .rotated(at: rotatedAt, successor: stored.hash)
        let count = presentedRecord.successorCount
        state.refreshTokens[presented]?.successorCount = count == .max ? count : count + 1
        if presentedRecord.status == .active {
            state.retireRefreshToken(presented, familyID: record.familyID)
        }
        return stored.token
    }
}

/// What the locked part of a refresh decided.
private enum RefreshOutcome {
    case tokens(PendingTokens, original: [String])
    /// A concurrent rotation answered with a server error page.
    case concurrentFailure
}
