import OAuthCore

/// The kinds of token the revocation endpoint revokes (RFC 7009 §2.1).
enum RevocableToken: Sendable, Equatable, CaseIterable {
    case refreshToken
    case accessToken

    /// The order in which a presented token is looked for: RFC 7009 §2.1 makes
    /// `token_type_hint` only a hint, so both kinds are tried, the hinted one first (a refresh
    /// token first without a hint, or with one this issuer does not know).
    static func lookupOrder(hint: String?) -> [RevocableToken] {
        hint == "access_token" ? [.accessToken, .refreshToken] : [.refreshToken, .accessToken]
    }
}

/// What a revocation request did with the presented token, looked for as one kind of token.
/// Every outcome answers 200 (RFC 7009 §2.2), so that the endpoint tells a client nothing
/// about tokens that are not its own.
enum RevocationDecision: Sendable, Equatable {
    /// Not a token of this kind that the issuer knows: the next kind is tried.
    case notFound
    /// Revoked.
    case revoked
    /// Found and left alone: another client's, or already expired (nothing to revoke).
    case leftAlone

    /// The error a revocation request gets after this outcome for every kind, if any: none
    /// (200, RFC 7009 §2.2), unless the tenant deviates with `revocation-rejects-unknown`
    /// (`rejectsUnknown`) and no kind of token knew it: then 400 `invalid_request`.
    func refusal(rejectsUnknown: Bool) -> OAuthError? {
        guard rejectsUnknown, self == .notFound else { return nil }
        return .invalidRequest("the token is unknown")
    }
}

extension IssuerState {
    /// Revokes a refresh token presented by `clientID` (RFC 7009 §2.1): its whole family and
    /// the access tokens issued in it, when the token is the client's. A token unknown, expired
    /// and forgotten, or of a family gone is `.notFound`; another client's is left alone.
    mutating func revokeRefreshToken(_ hash: TokenHash, token: String, clientID: String, now: Int64)
        -> RevocationDecision
    {
        guard let record = presentedRefreshToken(hash, token: token, now: now)?.record else {
            return .notFound
        }
        guard families[record.familyID]?.grant.clientID == clientID else { return .leftAlone }
        revokeGrant(familyID: record.familyID, reason: .revokedByClient, now: now)
        return .revoked
    }

    /// Revokes an access token this issuer signed (its `jti`, until it expires), presented by
    /// `clientID` (RFC 7009 §2.1): only the client's own, and only while it is live.
    mutating func revokeAccessToken(
        id: String, issuedTo owner: String?, expiresAt: Int64, clientID: String, now: Int64
    ) -> RevocationDecision {
        guard owner == clientID, expiresAt > now else { return .leftAlone }
        revokedAccessTokens[id] = expiresAt
        return .revoked
    }
}
