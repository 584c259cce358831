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

    /// Redeems a code, once, as `IssuerState.redeemAuthorizationCode` decides, and notes what
    /// it issued so that a second presentation can revoke it (RFC 6749 §4.1.2). Missing
    /// parameters are refused before the code is looked at and leave it unused.
    func redeemAuthorizationCode(_ context: TokenRequestContext) throws(OAuthError) -> HTTPResponse {
        let code = try context.parameters.required(OAuthParameter.code)
        let redirectURI = try context.parameters.required(OAuthParameter.redirectURI)
        let verifier = context.parameters[OAuthParameter.codeVerifier]
        let codeHash = Issuer.hash(code)
        let (client, proof, now) = (context.client, context.proof, context.now)
        var accessTokenID = newAccessTokenID()
        let refreshToken = newRefreshToken()
        let accessTokenExpiresAt = now + lifetimes(for: client).accessToken

        let facts = CodeRedemptionFacts(
            codeHash: codeHash, clientID: client.id, redirectURI: redirectURI, verifier: verifier,
            proofThumbprint: proof?.thumbprint,
            clientMayRefresh: client.grantTypes.contains(GrantType.refreshToken),
            deviations: tenant.deviations)

        let pending = try state.withLock { state throws(OAuthError) -> PendingTokens in
            sweepIfDue(&state, now: now)
            let redemption = try state.redeemAuthorizationCode(facts, now: now)
            let record = redemption.record
            let grant = TokenGrant(
                kind: .authorizationCode, user: redemption.user, client: client, scopes: record.scopes,
                audience: record.audience, nonce: record.nonce, authTime: record.authTime,
                sessionID: record.sessionID, dpopKeyThumbprint: proof?.thumbprint)
            var refresh: (token: String, familyID: RefreshFamily.ID)?
            if redemption.issuesRefreshToken {
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
