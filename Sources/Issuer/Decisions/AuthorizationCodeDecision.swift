import OAuthCore

/// What the authorization code grant needs to judge a token request (RFC 6749 §4.1.3).
struct CodeRedemptionFacts: Sendable {
    /// The hash of the `code` parameter (the key codes are stored under, `Issuer.hash`).
    var codeHash: String
    var clientID: String
    var redirectURI: String
    /// The `code_verifier` parameter (RFC 7636 §4.5).
    var verifier: String?
    /// The key of the request's verified DPoP proof (RFC 9449 §10); `nil` without a proof.
    var proofThumbprint: String?
    /// Whether the client is allowed the refresh token grant.
    var clientMayRefresh: Bool
    /// The rules of RFC 6749 §4.1.2–4.1.3, RFC 7636 §4.6 and RFC 9449 §10 the tenant breaks
    /// (`Tenant.deviations`).
    var deviations: Set<IssuerDeviation> = []
}

/// A code that may be redeemed: what it grants and to whom.
struct CodeRedemption: Sendable {
    var record: AuthorizationCodeRecord
    var user: UserAccount
    /// A refresh token comes only with `offline_access` (OpenID Connect Core §11) and to a
    /// client allowed the refresh grant.
    var issuesRefreshToken: Bool
}

extension IssuerState {
    /// Whether a code may be redeemed, once (RFC 6749 §4.1.2, §4.1.3).
    ///
    /// A code's first presentation uses it up whatever the outcome, so a stolen code cannot be
    /// tried repeatedly: a refused one is forgotten here. A second presentation of a code that
    /// was redeemed fails and revokes what the first one issued (§4.1.2): the refresh family
    /// and the access token. A redeemable code stays until the caller notes what it issued
    /// (`AuthorizationCodeRecord.redeemed`).
    ///
    /// Deviations: `code-reusable` judges a redeemed code as an unused one (nothing revoked,
    /// new tokens each time); `code-reuse-keeps-tokens` refuses the second presentation but
    /// revokes nothing.
    mutating func redeemAuthorizationCode(_ request: CodeRedemptionFacts, now: Int64) throws(OAuthError)
        -> CodeRedemption
    {
        guard let record = codes[request.codeHash] else {
            throw .invalidGrant("the authorization code is invalid, expired or already used")
        }
        if let redeemed = record.redeemed, !request.deviations.contains(.codeReusable) {
            guard !request.deviations.contains(.codeReuseKeepsTokens) else {
                throw .invalidGrant("the authorization code was already used")
            }
            if let familyID = redeemed.refreshFamilyID {
                revokeGrant(familyID: familyID, reason: .codeReused, now: now)
            }
            if redeemed.accessTokenExpiresAt > now {
                revokedAccessTokens[redeemed.accessTokenID.string] = redeemed.accessTokenExpiresAt
            }
            throw .invalidGrant(
                "the authorization code was already used; the tokens issued for it are revoked (RFC 6749 §4.1.2)"
            )
        }
        let user = users[record.userID]
        if let problem = record.redemptionProblem(
            now: now, clientID: request.clientID, redirectURI: request.redirectURI,
            verifier: request.verifier,
            proofThumbprint: request.proofThumbprint, userExists: user != nil, deviations: request.deviations)
        {
            codes[request.codeHash] = nil
            throw problem
        }
        guard let user else {
            codes[request.codeHash] = nil
            throw .invalidGrant("the user of the authorization code no longer exists")
        }
        return CodeRedemption(
            record: record, user: user,
            issuesRefreshToken: record.scopes.contains(StandardScope.offlineAccess)
                && request.clientMayRefresh)
    }
}

extension AuthorizationCodeRecord {
    /// Why this unused code cannot be redeemed by a token request with these facts, if it
    /// cannot (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 9449 §10): a decision that needs no issuer.
    /// `proofThumbprint` is the key of the request's DPoP proof, nil without one.
    ///
    /// `deviations` are the tenant's: `code-ignores-client` and `code-ignores-redirect-uri` skip
    /// those comparisons; `code-ignores-verifier` requires a verifier but takes any;
    /// `pkce-downgrade-allowed` ignores a verifier sent for a code issued without a challenge;
    /// `dpop-jkt-ignored` leaves the code unbound to its `dpop_jkt`. A challenge is compared
    /// as its recorded method says (`plain` only comes with `pkce-plain-allowed`).
    func redemptionProblem(
        now: Int64, clientID: String, redirectURI: String, verifier: String?, proofThumbprint: String?,
        userExists: Bool, deviations: Set<IssuerDeviation> = []
    ) -> OAuthError? {
        guard expiresAt > now else { return .invalidGrant("the authorization code expired") }
        guard self.clientID == clientID || deviations.contains(.codeIgnoresClient) else {
            return .invalidGrant("the authorization code was issued to another client")
        }
        // RFC 6749 §4.1.3: identical to the authorization request's, character for character.
        guard self.redirectURI == redirectURI || deviations.contains(.codeIgnoresRedirectURI) else {
            return .invalidGrant("redirect_uri differs from the one of the authorization request")
        }
        if let challenge = codeChallenge {
            guard let verifier else {
                return .invalidGrant("code_verifier is required: the code was issued for a code_challenge")
            }
            if !deviations.contains(.codeIgnoresVerifier) {
                guard PKCE.isValidVerifier(verifier) else {
                    return .invalidGrant(
                        "code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.1)")
                }
                guard codeChallengeMethod.verify(verifier: verifier, matches: challenge) else {
                    return .invalidGrant("code_verifier does not match the code_challenge (RFC 7636 §4.6)")
                }
            }
        } else if verifier != nil, !deviations.contains(.pkceDowngradeAllowed) {
            // RFC 9700 §2.1.1: a verifier without a challenge is a PKCE downgrade attempt.
            return .invalidGrant("code_verifier was sent but the code was issued without a code_challenge")
        }
        if let thumbprint = dpopKeyThumbprint, !deviations.contains(.dpopJKTIgnored) {
            guard let proofThumbprint else {
                return .invalidDPoPProof(
                    "the code is bound to a DPoP key (dpop_jkt); send a DPoP proof signed with it")
            }
            guard proofThumbprint == thumbprint else {
                return .invalidGrant(
                    "the DPoP proof's key is not the one the code is bound to (dpop_jkt, RFC 9449 §10)")
            }
        }
        guard userExists else { return .invalidGrant("the user of the authorization code no longer exists") }
        return nil
    }
}
