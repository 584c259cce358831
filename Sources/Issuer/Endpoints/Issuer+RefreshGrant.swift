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
        let rotation = refreshRotation(for: client)
        // Random values and hashes before the lock, which every token request contends for.
        let unmarkedAccessTokenID = newAccessTokenID()
        let fresh = newRefreshToken()

        let outcome = try state.withLock { state throws(OAuthError) -> RefreshOutcome in
            sweepIfDue(&state, now: now)
            guard
                let (record, binding) = state.presentedRefreshToken(
                    presentedHash, token: presentedToken, now: now),
                let family = state.families[record.familyID]
            else {
                throw .invalidGrant("the refresh token is invalid")
            }
            let stored = family.grant
            if let problem = record.refreshProblem(
                issuedTo: stored.clientID, familyRevoked: family.revokedReason != nil, boundTo: binding,
                clientID: client.id, proofThumbprint: proof?.thumbprint, now: now)
            {
                throw problem
            }
            if case .rotated(let at, _) = record.status, at == now,
                rotation.concurrentRefresh == .serverError
            {
                return .concurrentFailure
            }
            let exchange = try decideExchange(
                record, hash: presentedHash, token: presentedToken, fresh: fresh,
                profile: rotation.profile, issuedAt: record.expiresAt - lifetimes.refreshToken, now: now,
                in: &state)
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
            let refreshToken = commit(
                exchange, presented: presentedHash, record: record, grant: grant, now: now, in: &state)
            let accessTokenID = recordAccessToken(
                unmarkedAccessTokenID, expiresAt: now + lifetimes.accessToken, familyID: record.familyID,
                in: &state)
            grant.scopes = granted
            return .tokens(
                PendingTokens(
                    grant: grant, accessTokenID: accessTokenID, refreshToken: refreshToken,
                    refreshFamilyID: record.familyID),
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

    /// What a refresh does to the presented token and which successor it answers, by the
    /// profile's rule; throws the refusal (after revoking what the rule revokes).
    ///
    /// - Parameter issuedAt: when the presented token was issued (Keycloak compares it).
    private func decideExchange(
        _ record: RefreshTokenRecord, hash: TokenHash, token: String, fresh: RefreshTokenSeed,
        profile: RefreshRotation, issuedAt: Int64, now: Int64, in state: inout IssuerState
    ) throws(OAuthError) -> RefreshExchange {
        if case .keycloak(let maxReuse) = profile {
            return try keycloakExchange(
                record, hash: hash, fresh: fresh, maxReuse: maxReuse, issuedAt: issuedAt, now: now, in: &state
            )
        }
        guard case .rotated(let at, let successorHash) = record.status else {
            // A live token: rotate it, or keep it where the profile does not rotate.
            switch profile {
            case .none: return .keep
            case .djangoOAuthToolkit: return .successor(derivedSeed(of: token, index: 0) ?? fresh)
            default: return .successor(fresh)
            }
        }
        let successorUnused =
            state.refreshTokens[successorHash].map { state.refreshTokenStatus($0) == .active } ?? false
        switch profile.decideReuse(age: now - at, successorUnused: successorUnused) {
        case .issueAgain(let revokingUnusedSuccessor):
            return .again(fresh, rotatedAt: at, revoking: revokingUnusedSuccessor ? successorHash : nil)
        case .sameSuccessorWhileUnused:
            // Any generation: the same successor while it is live, otherwise a fresh one
            // (django-oauth-toolkit#1617).
            if successorUnused, let successor = state.refreshTokens[successorHash],
                let seed = derivedSeed(of: token, index: Int(record.successorCount) - 1)
            {
                let same = RefreshTokenFormat(
                    familyID: record.familyID, expiresAt: successor.expiresAt,
                    bound: state.refreshTokenBindings[successorHash] != nil
                ).token(seed: seed.bytes, key: refreshTokenKey(in: &state))
                if TokenHash(of: same) == successorHash { return .replay(same) }
            }
            let index = Int(record.successorCount)
            return .again(derivedSeed(of: token, index: index) ?? fresh, rotatedAt: at, revoking: nil)
        case .refuse(let description, let revocation):
            switch revocation {
            case .nothing: break
            case .refreshTokens: revokeFamily(record.familyID, reason: .replayDetected, in: &state)
            case .grant: revokeGrant(familyID: record.familyID, reason: .replayDetected, now: now, in: &state)
            }
            throw .invalidGrant(description)
        }
    }

    /// Keycloak's `validateTokenReuse`: the token presented last may be used `maxReuse + 1`
    /// times; another one takes its place unless it was issued before the newest refresh token.
    /// A refusal ends the client session: the family and its access tokens.
    private func keycloakExchange(
        _ record: RefreshTokenRecord, hash: TokenHash, fresh: RefreshTokenSeed, maxReuse: Int,
        issuedAt: Int64, now: Int64, in state: inout IssuerState
    ) throws(OAuthError) -> RefreshExchange {
        var reuse = state.keycloakReuse[record.familyID] ?? KeycloakReuseState()
        var refusal: String?
        if let current = reuse.current, current != hash, issuedAt < reuse.lastRefresh {
            refusal = "Stale token"
        } else {
            if reuse.current != hash {
                reuse.current = hash
                reuse.useCount = 0
            }
            if reuse.useCount > maxReuse { refusal = "Maximum allowed refresh token reuse exceeded" }
        }
        if let refusal {
            state.keycloakReuse[record.familyID] = nil
            revokeGrant(familyID: record.familyID, reason: .replayDetected, now: now, in: &state)
            throw .invalidGrant(refusal)
        }
        reuse.useCount += 1
        reuse.lastRefresh = now
        state.keycloakReuse[record.familyID] = reuse
        if case .rotated(let at, _) = record.status { return .again(fresh, rotatedAt: at, revoking: nil) }
        return .successor(fresh)
    }

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

    /// The random part of the `index`th successor of `token` under the `django-oauth-toolkit`
    /// profile: from HMAC-SHA256 of the token and the index, so that the same successor can be
    /// made again. `nil` without the key, for a negative index, or past the record's count.
    private func derivedSeed(of token: String, index: Int) -> RefreshTokenSeed? {
        guard let successorKey, (0..<Int(UInt8.max)).contains(index) else { return nil }
        let code = successorKey.authenticationCode(for: Array(token.utf8) + [UInt8(index)])
        return RefreshTokenSeed(bytes: Array(code.prefix(RefreshTokenFormat.seedLength)))
    }
}

/// What the locked part of a refresh decided.
private enum RefreshOutcome {
    case tokens(PendingTokens, original: [String])
    /// A concurrent rotation answered with a server error page.
    case concurrentFailure
}

/// What a refresh does with refresh tokens.
private enum RefreshExchange {
    /// No rotation: no `refresh_token` in the answer, the presented one stays.
    case keep
    /// The presented live token is rotated into a successor made from this seed.
    case successor(RefreshTokenSeed)
    /// A token already rotated is exchanged again for this successor; it keeps its first
    /// rotation time, and `revoking` names a successor to revoke (SignInSim's grace).
    case again(RefreshTokenSeed, rotatedAt: Int64, revoking: TokenHash?)
    /// The successor already issued for the presented token is answered again, unchanged.
    case replay(String)
}

extension RefreshTokenRecord {
    /// Why this refresh token cannot be exchanged by a request with these facts, before the
    /// rotation profile's rule for a used token applies (RFC 6749 §6, RFC 9449 §5): a decision
    /// that needs no issuer. `boundTo` is the DPoP key the token is bound to, `proofThumbprint`
    /// the key of the request's proof, nil without one.
    ///
    /// Without any proof a bound token fails `invalid_dpop_proof` (the client can fix that);
    /// with another key it fails `invalid_grant` (the grant is not this key's).
    func refreshProblem(
        issuedTo owner: String, familyRevoked: Bool, boundTo binding: String?, clientID: String,
        proofThumbprint: String?, now: Int64
    ) -> OAuthError? {
        guard owner == clientID else {
            return .invalidGrant("the refresh token was issued to another client")
        }
        guard expiresAt > now else { return .invalidGrant("the refresh token expired") }
        if let binding {
            guard let proofThumbprint else {
                return .invalidDPoPProof(
                    "the refresh token is bound to a DPoP key; send a proof signed with it")
            }
            guard proofThumbprint == binding else {
                return .invalidGrant("the refresh token is bound to another DPoP key (RFC 9449 §5)")
            }
        }
        if familyRevoked || status == .revoked { return .invalidGrant("the refresh token was revoked") }
        return nil
    }
}
