import Cryptography
import OAuthCore

/// What the refresh token grant needs to judge a request (RFC 6749 §6): the request's facts,
/// the client's settings, and what the issuer drew for it before taking its lock.
struct RefreshRequestFacts: Sendable {
    /// The `refresh_token` parameter, and its hash (the key it is stored under).
    var presentedToken: String
    var presentedHash: TokenHash
    /// The `scope` parameter, parsed; `nil` when the request names none.
    var requestedScopes: [String]?
    /// The authenticated client's id.
    var clientID: String
    /// The key of the request's verified DPoP proof (RFC 9449 §5); `nil` without a proof.
    var proofThumbprint: String?
    /// The client's rotation profile and its answer to a concurrent rotation.
    var rotation: RefreshRotationSettings
    /// How long the client's refresh tokens live: a token was issued that long before it
    /// expires (Keycloak compares issue times).
    var refreshTokenLifetime: Int64
    /// The random part of a fresh successor, drawn before the lock.
    var freshSeed: RefreshTokenSeed
    /// The key the `django-oauth-toolkit` profile derives successors with (`Issuer.successorKey`).
    var successorKey: HMACSHA256Key?
    /// The rules of RFC 6749 §6 and RFC 9449 §5 the tenant breaks (`Tenant.deviations`).
    var deviations: Set<IssuerDeviation> = []
}

/// What a refresh token request gets, decided under the issuer's lock.
enum RefreshDecision: Sendable {
    /// `ConcurrentRefresh.serverError`: the token was rotated in this second, and the request
    /// fails as the real issuer's transaction does, changing nothing.
    case concurrentFailure
    /// New tokens for the grant.
    case tokens(RefreshGrantDecision)
}

/// A refresh that succeeds: whose grant it is, what the new access token may do, and what
/// happens to the refresh tokens.
struct RefreshGrantDecision: Sendable {
    /// The presented token's record, as it was before the exchange.
    var record: RefreshTokenRecord
    /// What the family grants; the successor keeps all of it (RFC 6749 §6).
    var grant: RefreshGrant
    var user: UserAccount
    /// The scopes of the new access token: the grant's, narrowed by `scope` if it was sent.
    var grantedScopes: [String]
    var exchange: RefreshExchange
}

/// What a refresh does with refresh tokens.
enum RefreshExchange: Sendable, Equatable {
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

extension IssuerState {
    /// The refresh token grant's rules (RFC 6749 §6; rotation and reuse detection as RFC 9700
    /// §4.14.2 and the client's `RefreshRotation` profile have them), in their order: the token
    /// must be known and of a family still kept; `RefreshTokenRecord.refreshProblem` (client,
    /// expiry, DPoP binding of RFC 9449 §5, revocation); the `.serverError` answer to a
    /// concurrent rotation (`ConcurrentRefresh`), before the profile's rule as the real issuer's
    /// transaction fails before it gets that far; the profile's exchange; `scope` narrowing;
    /// the user still existing.
    ///
    /// A refusal of the profile's reuse rule revokes what the rule revokes before it is thrown;
    /// Keycloak's use count is kept here. The successful exchange is left to the caller to
    /// store (`Issuer.commit`).
    mutating func refresh(_ request: RefreshRequestFacts, now: Int64) throws(OAuthError) -> RefreshDecision {
        guard
            let (record, binding) = presentedRefreshToken(
                request.presentedHash, token: request.presentedToken, now: now),
            let family = families[record.familyID]
        else {
            throw .invalidGrant("the refresh token is invalid")
        }
        let grant = family.grant
        if let problem = record.refreshProblem(
            issuedTo: grant.clientID, familyRevoked: family.revokedReason != nil, boundTo: binding,
            clientID: request.clientID, proofThumbprint: request.proofThumbprint, now: now,
            deviations: request.deviations)
        {
            throw problem
        }
        if case .rotated(let at, _) = record.status, at == now,
            request.rotation.concurrentRefresh == .serverError
        {
            return .concurrentFailure
        }
        let exchange = try decideExchange(
            record, request, issuedAt: record.expiresAt - request.refreshTokenLifetime, now: now)
        let grantedScopes = try grant.scopes(narrowedTo: request.requestedScopes)
        guard let user = users[grant.userID] else {
            throw .invalidGrant("the user of the refresh token no longer exists")
        }
        return .tokens(
            RefreshGrantDecision(
                record: record, grant: grant, user: user, grantedScopes: grantedScopes, exchange: exchange))
    }

    /// What a refresh does to the presented token and which successor it answers, by the
    /// profile's rule (`RefreshRotation.decideReuse` for a rotated token); throws the refusal,
    /// after revoking what the rule revokes.
    ///
    /// - Parameter issuedAt: when the presented token was issued (Keycloak compares it).
    private mutating func decideExchange(
        _ record: RefreshTokenRecord, _ request: RefreshRequestFacts, issuedAt: Int64, now: Int64
    ) throws(OAuthError) -> RefreshExchange {
        let profile = request.rotation.profile
        let token = request.presentedToken
        let fresh = request.freshSeed
        if case .keycloak(let maxReuse) = profile {
            return try keycloakExchange(
                record, hash: request.presentedHash, fresh: fresh, maxReuse: maxReuse, issuedAt: issuedAt,
                now: now)
        }
        guard case .rotated(let at, let successorHash) = record.status else {
            // A live token: rotate it, or keep it where the profile does not rotate.
            switch profile {
            case .none: return .keep
            case .djangoOAuthToolkit:
                return .successor(
                    RefreshTokenSeed.derived(from: token, index: 0, key: request.successorKey) ?? fresh)
            default: return .successor(fresh)
            }
        }
        let successorUnused = refreshTokens[successorHash].map { refreshTokenStatus($0) == .active } ?? false
        switch profile.decideReuse(age: now - at, successorUnused: successorUnused) {
        case .issueAgain(let revokingUnusedSuccessor):
            return .again(fresh, rotatedAt: at, revoking: revokingUnusedSuccessor ? successorHash : nil)
        case .sameSuccessorWhileUnused:
            // Any generation: the same successor while it is live, otherwise a fresh one
            // (django-oauth-toolkit#1617). A stored successor means the state has its key.
            if successorUnused, let successor = refreshTokens[successorHash], let key = refreshTokenKey,
                let seed = RefreshTokenSeed.derived(
                    from: token, index: Int(record.successorCount) - 1, key: request.successorKey)
            {
                let same = RefreshTokenFormat(
                    familyID: record.familyID, expiresAt: successor.expiresAt,
                    bound: refreshTokenBindings[successorHash] != nil
                ).token(seed: seed.bytes, key: key)
                if TokenHash(of: same) == successorHash { return .replay(same) }
            }
            let seed = RefreshTokenSeed.derived(
                from: token, index: Int(record.successorCount), key: request.successorKey)
            return .again(seed ?? fresh, rotatedAt: at, revoking: nil)
        case .refuse(let description, let revocation):
            switch revocation {
            case .nothing: break
            case .refreshTokens: revokeFamily(record.familyID, reason: .replayDetected)
            case .grant: revokeGrant(familyID: record.familyID, reason: .replayDetected, now: now)
            }
            throw .invalidGrant(description)
        }
    }

    /// Keycloak's `validateTokenReuse`: the token presented last may be used `maxReuse + 1`
    /// times; another one takes its place unless it was issued before the newest refresh token.
    /// A refusal ends the client session: the family and its access tokens.
    private mutating func keycloakExchange(
        _ record: RefreshTokenRecord, hash: TokenHash, fresh: RefreshTokenSeed, maxReuse: Int,
        issuedAt: Int64, now: Int64
    ) throws(OAuthError) -> RefreshExchange {
        var reuse = keycloakReuse[record.familyID] ?? KeycloakReuseState()
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
            keycloakReuse[record.familyID] = nil
            revokeGrant(familyID: record.familyID, reason: .replayDetected, now: now)
            throw .invalidGrant(refusal)
        }
        reuse.useCount += 1
        reuse.lastRefresh = now
        keycloakReuse[record.familyID] = reuse
        if case .rotated(let at, _) = record.status { return .again(fresh, rotatedAt: at, revoking: nil) }
        return .successor(fresh)
    }

    /// Revokes a whole refresh token family (reuse detected, code replayed, or revocation):
    /// its tokens are judged by the family from then on (`refreshTokenStatus`).
    mutating func revokeFamily(_ familyID: RefreshFamily.ID, reason: RefreshFamily.RevocationReason) {
        families[familyID]?.revokedReason = reason
    }

    /// Revokes a refresh family and every unexpired access token issued in it (RFC 7009 §2.1).
    mutating func revokeGrant(familyID: RefreshFamily.ID, reason: RefreshFamily.RevocationReason, now: Int64)
    {
        revokeFamily(familyID, reason: reason)
        guard let expiresBy = families[familyID]?.accessTokensExpireBy, expiresBy > now else { return }
        revokedAccessTokenFamilies[familyID] = expiresBy
    }
}

extension RefreshGrant {
    /// The scopes a refresh's access token gets: all of the grant's, or those of `requested`
    /// (in the grant's order), which may narrow the grant but never widen it (RFC 6749 §6).
    func scopes(narrowedTo requested: [String]?) throws(OAuthError) -> [String] {
        guard let requested else { return scopes }
        if let extra = requested.first(where: { !scopes.contains($0) }) {
            throw .invalidScope(
                "scope \(OAuthRequestParameters.quoted(extra)) was not granted to this refresh token;"
                    + " a refresh may only narrow the scope (RFC 6749 §6)")
        }
        return scopes.filter(requested.contains)
    }
}

extension RefreshTokenSeed {
    /// The random part of the `index`th successor of `token` under the `django-oauth-toolkit`
    /// profile: from HMAC-SHA256 of the token and the index, so that the same successor can be
    /// made again. `nil` without the key, or for an index outside 0..<255 (the record's count).
    static func derived(from token: String, index: Int, key: HMACSHA256Key?) -> RefreshTokenSeed? {
        guard let key, (0..<Int(UInt8.max)).contains(index) else { return nil }
        let code = key.authenticationCode(for: Array(token.utf8) + [UInt8(index)])
        return RefreshTokenSeed(bytes: Array(code.prefix(RefreshTokenFormat.seedLength)))
    }
}

extension RefreshTokenRecord {
    /// Why this refresh token cannot be exchanged by a request with these facts, before the
    /// rotation profile's rule for a used token applies (RFC 6749 §6, RFC 9449 §5): a decision
    /// that needs no issuer. `boundTo` is the DPoP key the token is bound to, `proofThumbprint`
    /// the key of the request's proof, nil without one.
    ///
    /// Without any proof a bound token fails `invalid_dpop_proof` (the client can fix that);
    /// with another key it fails `invalid_grant` (the grant is not this key's).
    ///
    /// `deviations` are the tenant's: `refresh-ignores-client` lets any client redeem the
    /// token; `dpop-refresh-unbound` takes a proof of any key for a bound token (a proof is
    /// still needed).
    func refreshProblem(
        issuedTo owner: String, familyRevoked: Bool, boundTo binding: String?, clientID: String,
        proofThumbprint: String?, now: Int64, deviations: Set<IssuerDeviation> = []
    ) -> OAuthError? {
        guard owner == clientID || deviations.contains(.refreshIgnoresClient) else {
            return .invalidGrant("the refresh token was issued to another client")
        }
        guard expiresAt > now else { return .invalidGrant("the refresh token expired") }
        if let binding {
            guard let proofThumbprint else {
                return .invalidDPoPProof(
                    "the refresh token is bound to a DPoP key; send a proof signed with it")
            }
            guard proofThumbprint == binding || deviations.contains(.dpopRefreshUnbound) else {
                return .invalidGrant("the refresh token is bound to another DPoP key (RFC 9449 §5)")
            }
        }
        if familyRevoked || status == .revoked { return .invalidGrant("the refresh token was revoked") }
        return nil
    }
}
