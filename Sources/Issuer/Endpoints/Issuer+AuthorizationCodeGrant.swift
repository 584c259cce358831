import HTTPCore
import OAuthCore

// The authorization code grant at the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.6).
extension Issuer {
    /// Stores an authorization code exactly as `/authorize` does after login and consent, and
    /// returns the code: for scenarios that start past the browser, and for tests.
    ///
    /// Nothing is checked here (the client, redirect URI and scopes are taken as given); the
    /// token endpoint checks the redemption as usual. The code lives as long as the client's
    /// (or tenant's) `authorizationCode` lifetime.
    public func issueAuthorizationCode(
        clientID: String, redirectURI: String, userID: String, scopes: [String], nonce: String? = nil,
        codeChallenge: String? = nil, audience: String? = nil, authTime: Int64? = nil,
        sessionID: String? = nil,
        dpopKeyThumbprint: String? = nil
    ) -> String {
        let now = clock.now()
        let code = randomValue()
        let codeHash = Issuer.hash(code)
        state.withLock { state in
            let lifetime = state.clients[clientID].map(lifetimes(for:)) ?? tenant.lifetimes
            state.codes[codeHash] = AuthorizationCodeRecord(
                clientID: clientID, redirectURI: redirectURI, userID: userID, scopes: scopes,
                audience: audience,
                nonce: nonce, codeChallenge: codeChallenge, authTime: authTime ?? now, sessionID: sessionID,
                dpopKeyThumbprint: dpopKeyThumbprint, expiresAt: now + lifetime.authorizationCode,
                redeemed: nil)
        }
        return code
    }

    /// Redeems a code, once.
    ///
    /// A code's first presentation uses it up whatever the outcome, so a stolen code cannot be
    /// tried repeatedly. A second presentation of a code that was redeemed fails and revokes
    /// what the first one issued (RFC 6749 §4.1.2): the refresh family and the access token.
    /// Missing parameters are refused before the code is looked at and leave it unused.
    func redeemAuthorizationCode(_ context: TokenRequestContext) throws(OAuthError) -> HTTPResponse {
        let code = try context.parameters.required(OAuthParameter.code)
        let redirectURI = try context.parameters.required(OAuthParameter.redirectURI)
        let verifier = context.parameters[OAuthParameter.codeVerifier]
        let codeHash = Issuer.hash(code)
        let (client, proof, now) = (context.client, context.proof, context.now)
        var accessTokenID = newAccessTokenID()
        let refreshToken = newRefreshToken()
        let accessTokenExpiresAt = now + lifetimes(for: client).accessToken

        let pending = try state.withLock { state throws(OAuthError) -> PendingTokens in
            sweepIfDue(&state, now: now)
            guard let record = state.codes[codeHash] else {
                throw .invalidGrant("the authorization code is invalid, expired or already used")
            }
            if let redeemed = record.redeemed {
                if let familyID = redeemed.refreshFamilyID {
                    state.revokeGrant(familyID: familyID, reason: .codeReused, now: now)
                }
                if redeemed.accessTokenExpiresAt > now {
                    state.revokedAccessTokens[redeemed.accessTokenID.string] = redeemed.accessTokenExpiresAt
                }
                throw .invalidGrant(
                    "the authorization code was already used; the tokens issued for it are revoked (RFC 6749 §4.1.2)"
                )
            }
            let user = state.users[record.userID]
            if let problem = record.redemptionProblem(
                now: now, clientID: client.id, redirectURI: redirectURI, verifier: verifier,
                proofThumbprint: proof?.thumbprint, userExists: user != nil)
            {
                state.codes[codeHash] = nil
                throw problem
            }
            guard let user else {
                state.codes[codeHash] = nil
                throw .invalidGrant("the user of the authorization code no longer exists")
            }
            let grant = TokenGrant(
                kind: .authorizationCode, user: user, client: client, scopes: record.scopes,
                audience: record.audience, nonce: record.nonce, authTime: record.authTime,
                sessionID: record.sessionID, dpopKeyThumbprint: proof?.thumbprint)
            var refresh: (token: String, familyID: RefreshFamily.ID)?
            if record.scopes.contains(StandardScope.offlineAccess),
                client.grantTypes.contains(GrantType.refreshToken)
            {
                let stored = storeRefreshToken(refreshToken, for: grant, familyID: nil, now: now, in: &state)
                accessTokenID = recordAccessToken(
                    accessTokenID, expiresAt: accessTokenExpiresAt, familyID: stored.familyID, in: &state)
                refresh = (stored.token, stored.familyID)
            }
            state.codes[codeHash]?.redeemed = RedeemedTokens(
                refreshFamilyID: refresh?.familyID, accessTokenID: accessTokenID,
                accessTokenExpiresAt: accessTokenExpiresAt)
            return PendingTokens(
                grant: grant, accessTokenID: accessTokenID, refreshToken: refresh?.token,
                refreshFamilyID: refresh?.familyID)
        }
        let tokens = try signTokens(pending, now: now)
        // The token request names no scope: report what was granted (RFC 6749 §5.1).
        return tokenResponse(tokens, requestedScopes: nil, grantedScopes: pending.grant.scopes)
    }
}

extension AuthorizationCodeRecord {
    /// Why this unused code cannot be redeemed by a token request with these facts, if it
    /// cannot (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 9449 §10): a decision that needs no issuer.
    /// `proofThumbprint` is the key of the request's DPoP proof, nil without one.
    func redemptionProblem(
        now: Int64, clientID: String, redirectURI: String, verifier: String?, proofThumbprint: String?,
        userExists: Bool
    ) -> OAuthError? {
        guard expiresAt > now else { return .invalidGrant("the authorization code expired") }
        guard self.clientID == clientID else {
            return .invalidGrant("the authorization code was issued to another client")
        }
        // RFC 6749 §4.1.3: identical to the authorization request's, character for character.
        guard self.redirectURI == redirectURI else {
            return .invalidGrant("redirect_uri differs from the one of the authorization request")
        }
        if let challenge = codeChallenge {
            guard let verifier else {
                return .invalidGrant("code_verifier is required: the code was issued for a code_challenge")
            }
            guard PKCE.isValidVerifier(verifier) else {
                return .invalidGrant(
                    "code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.1)")
            }
            guard PKCE.verify(verifier: verifier, matches: challenge) else {
                return .invalidGrant("code_verifier does not match the code_challenge (RFC 7636 §4.6)")
            }
        } else if verifier != nil {
            // RFC 9700 §2.1.1: a verifier without a challenge is a PKCE downgrade attempt.
            return .invalidGrant("code_verifier was sent but the code was issued without a code_challenge")
        }
        if let thumbprint = dpopKeyThumbprint {
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
