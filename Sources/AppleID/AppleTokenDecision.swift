import OAuthCore

/// The rules of Apple's token endpoint (`POST /auth/token`, "Generate and validate tokens") and
/// revocation endpoint (`POST /auth/revoke`, "Revoke tokens"), as decisions that need no
/// provider: they take the state, the request's facts and an explicit time, and say what to
/// answer and what to change. The HTTP handlers ask them under the lock and apply the answer.

/// The grants `/auth/token` serves (Apple's `grant_type`: "authorization_code" or
/// "refresh_token").
enum AppleGrantType: Sendable, Equatable {
    case authorizationCode
    case refreshToken

    /// The grant a form asks for.
    ///
    /// - Throws: `invalid_request` without `grant_type`, `unsupported_grant_type` for another
    ///   one (RFC 6749 §5.2).
    init(form: [String: String]) throws(AppleEndpointError) {
        guard let grantType = form[OAuthParameter.grantType], !grantType.isEmpty else {
            throw .invalidRequest("grant_type is required")
        }
        switch grantType {
        case GrantType.authorizationCode: self = .authorizationCode
        case GrantType.refreshToken: self = .refreshToken
        default:
            throw .unsupportedGrantType(
                "grant_type \"\(grantType.prefix(64))\" is not supported (authorization_code, refresh_token are)"
            )
        }
    }
}

/// What a successful token request answers and stores.
struct AppleTokenDecision: Sendable {
    /// Whose tokens these are: the `id_token`'s claims.
    var grant: AppleGrant
    /// The storage key of the code this request uses up; `nil` for a refresh.
    var usedCode: String?
    /// Whether a refresh token is issued: with a code only, as Apple's refresh tokens do not
    /// rotate.
    var issuesRefreshToken: Bool
    /// The `nonce` the `id_token` repeats: the authorization's for a code, none for a refresh
    /// (no request of the app is being answered).
    var nonce: String?
    var accessTokenExpiresAt: Int64
}

/// What a revocation request does.
enum AppleRevocationDecision: Sendable, Equatable {
    /// Nothing: an unknown token (RFC 7009 §2.2 still answers 200) or an authorization that
    /// already ended.
    case nothing
    /// The authorization ends: every token and pending code of it dies, its state becomes
    /// `revoked`, and its next authorization is a first one again.
    case end(AppAuthorizationKey)
}

extension AppleProviderState {
    /// Whether a valid client secret of `teamID` authenticates `clientID` at `/auth/token` and
    /// `/auth/revoke`: the app must be known and belong to that team, as a client secret's
    /// `iss` is the team that owns the app ("Creating a client secret"). Either failure is
    /// `invalid_client` (RFC 6749 §5.2).
    func checkClient(_ clientID: String, authenticatedAs teamID: String) throws(AppleEndpointError) {
        guard let owner = apps[clientID] else {
            throw .invalidClient("client_id \"\(clientID.prefix(155))\" is not a known app")
        }
        guard owner == teamID else {
            throw .invalidClient(
                "client_id \(clientID.prefix(155)) belongs to team \(owner), not to \(teamID.prefix(32))")
        }
    }

    /// Whether the code stored under `codeKey` may be redeemed by `clientID` at `now`, in
    /// Apple's order: known, issued to this client, never used (single use: RFC 6749 §4.1.2),
    /// not expired (Apple: valid five minutes), and of an authorization that still stands.
    ///
    /// Native codes are issued without a redirect URI, so a `redirect_uri` sent anyway has
    /// nothing to match and is not judged (Apple requires it only for codes of the web flow).
    func decideCodeRedemption(codeKey: String, clientID: String, accessTokenLifetime: Int64, now: Int64)
        throws(AppleEndpointError) -> AppleTokenDecision
    {
        guard let record = codes[codeKey] else {
            throw .invalidGrant(AppleEndpointError.codeExpiredOrRevoked, reason: "unknown or expired code")
        }
        guard record.grant.clientID == clientID else {
            throw .invalidGrant("client_id mismatch. The code was not issued to \(clientID.prefix(155)).")
        }
        guard !record.used else { throw .invalidGrant(AppleEndpointError.codeAlreadyUsed) }
        guard now < record.expiresAt else {
            throw .invalidGrant(
                AppleEndpointError.codeExpiredOrRevoked,
                reason: "the code expired at \(record.expiresAt); now is \(now)")
        }
        guard isCurrent(record.grant) else {
            throw .invalidGrant(
                AppleEndpointError.codeExpiredOrRevoked, reason: "the authorization was revoked since")
        }
        return AppleTokenDecision(
            grant: record.grant, usedCode: codeKey, issuesRefreshToken: true, nonce: record.grant.nonce,
            accessTokenExpiresAt: now + accessTokenLifetime)
    }

    /// Whether the refresh token stored under `tokenKey` buys `clientID` a new access token at
    /// `now`: known, issued to this client, and of an authorization that still stands (the
    /// provider gives refresh tokens no expiry; ending the authorization ends them).
    func decideRefresh(tokenKey: String, clientID: String, accessTokenLifetime: Int64, now: Int64)
        throws(AppleEndpointError) -> AppleTokenDecision
    {
        guard let record = refreshTokens[tokenKey] else {
            throw .invalidGrant(AppleEndpointError.tokenExpiredOrRevoked, reason: "unknown refresh token")
        }
        guard record.grant.clientID == clientID else {
            throw .invalidGrant("client_id mismatch. The token was not issued to \(clientID.prefix(155)).")
        }
        guard isCurrent(record.grant) else {
            throw .invalidGrant(
                AppleEndpointError.tokenExpiredOrRevoked, reason: "the authorization was revoked")
        }
        return AppleTokenDecision(
            grant: record.grant, usedCode: nil, issuesRefreshToken: false, nonce: nil,
            accessTokenExpiresAt: now + accessTokenLifetime)
    }

    /// Writes what a token request decided: the code used up, and the new tokens stored under
    /// their storage keys (`refreshKey` is ignored when the decision issues none).
    mutating func apply(_ decision: AppleTokenDecision, accessKey: String, refreshKey: String?) {
        if let codeKey = decision.usedCode { codes[codeKey]?.used = true }
        if decision.issuesRefreshToken, let refreshKey {
            refreshTokens[refreshKey] = RefreshTokenRecord(grant: decision.grant)
        }
        accessTokens[accessKey] = AccessTokenRecord(
            grant: decision.grant, expiresAt: decision.accessTokenExpiresAt)
    }

    /// What revoking the token stored under `tokenKey` does for `clientID`.
    ///
    /// The hint only orders the lookup (RFC 7009 §2.1): `access_token` looks among access
    /// tokens first, anything else (or none) among refresh tokens first. An unknown token
    /// changes nothing and is still answered 200 (RFC 7009 §2.2); a token of another client is
    /// refused (`invalid_grant`, as Apple answers it).
    func decideRevocation(tokenKey: String, hint: String?, clientID: String) throws(AppleEndpointError)
        -> AppleRevocationDecision
    {
        let refreshFirst = hint != "access_token"
        let refreshGrant = refreshTokens[tokenKey]?.grant
        let accessGrant = accessTokens[tokenKey]?.grant
        guard let grant = refreshFirst ? (refreshGrant ?? accessGrant) : (accessGrant ?? refreshGrant) else {
            return .nothing
        }
        guard grant.clientID == clientID else {
            throw .invalidGrant("client_id mismatch. The token was not issued to \(clientID.prefix(155)).")
        }
        return isCurrent(grant) ? .end(grant.authorization) : .nothing
    }

    /// Writes what a revocation decided.
    mutating func apply(_ decision: AppleRevocationDecision) {
        guard case .end(let key) = decision else { return }
        end(key, state: .revoked)
    }
}
