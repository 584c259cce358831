import HTTPCore
import OAuthCore
import WorldVocabulary

/// A token request after the checks every grant shares: parameters read, client authenticated
/// and allowed the grant, DPoP proof (if any) verified.
struct TokenRequestContext: Sendable {
    var parameters: OAuthRequestParameters
    var client: ClientRegistration
    /// The verified DPoP proof, when the request carried one: issued tokens are bound to its key.
    var proof: DPoPProof?
    var now: Int64
}

/// What a grant decided under the lock, to be signed after it is released.
struct PendingTokens: Sendable {
    /// What the access and ID tokens say (the granted scopes).
    var grant: TokenGrant
    /// The access token's `jti`, chosen under the lock so that a revocation racing the signing
    /// (a replayed code) already knows it.
    var accessTokenID: AccessTokenID
    var refreshToken: String?
    var refreshFamilyID: RefreshFamily.ID?
}

// `POST /oauth/token` (RFC 6749 §3.2, §4.1.3, §6; RFC 8693 §2; RFC 9449 §5).
extension Issuer {
    /// Grant types the token endpoint implements; a client's registration picks among them.
    static let supportedGrantTypes: Set<String> = [
        GrantType.authorizationCode, GrantType.refreshToken, GrantType.tokenExchange,
    ]

    /// `POST /oauth/token`, every grant: answered on the spot, except a token exchange, whose
    /// subject token may have to be checked with Apple over the network; it is left for later
    /// once the checks every grant shares are done.
    func token(_ request: HTTPRequest) -> ImmediateAnswer {
        let now = clock.now()
        let grantType: String
        let context: TokenRequestContext
        do {
            (grantType, context) = try checkTokenRequest(request, now: now)
        } catch {
            return .response(offeringDPoPNonce(error.response, now: now))
        }
        if grantType == GrantType.tokenExchange {
            return .later {
                let response: HTTPResponse
                do throws(OAuthError) {
                    response = try await self.exchangeToken(context)
                } catch {
                    response = error.response
                }
                return self.offeringDPoPNonce(response, now: now)
            }
        }
        let response: HTTPResponse
        do {
            response =
                grantType == GrantType.authorizationCode
                ? try redeemAuthorizationCode(context) : try refreshTokens(context)
        } catch {
            response = error.response
        }
        return .response(offeringDPoPNonce(response, now: now))
    }

    /// RFC 9449 §8.2: a server that requires nonces may hand the next one out with any response.
    private func offeringDPoPNonce(_ response: HTTPResponse, now: Int64) -> HTTPResponse {
        guard !response.headers.contains("DPoP-Nonce"), let nonce = dpopNonceHeader(now: now) else {
            return response
        }
        var response = response
        response.headers.add(name: "DPoP-Nonce", value: nonce)
        return response
    }

    /// The checks in the order a client can act on them: the request's shape, the grant type,
    /// who the client is, whether it may use the grant, its DPoP proof.
    ///
    /// With the `dpop-ignored` deviation the `DPoP` header is not read: nothing is bound and
    /// tokens are Bearer tokens (RFC 9449 §5 says to bind them). A client that must use DPoP
    /// still has to send the header.
    private func checkTokenRequest(_ request: HTTPRequest, now: Int64) throws(OAuthError)
        -> (grantType: String, context: TokenRequestContext)
    {
        let parameters = try OAuthRequestParameters(request: request)
        guard let grantType = parameters[OAuthParameter.grantType] else {
            throw .invalidRequest("grant_type is required")
        }
        guard Issuer.supportedGrantTypes.contains(grantType) else {
            throw .unsupportedGrantType(
                "grant_type \(OAuthRequestParameters.quoted(grantType)) is not supported; this issuer takes "
                    + Issuer.supportedGrantTypes.sorted().joined(separator: ", "))
        }
        let client = try authenticateClient(parameters, request: request)
        guard client.grantTypes.contains(grantType) else {
            throw .unauthorizedClient("client \(client.id) is not allowed the \(grantType) grant")
        }
        let ignoresDPoP = tenant.deviates(.dpopIgnored)
        let proof = ignoresDPoP ? nil : try verifyDPoPProof(request, endpoint: .token, now: now)
        if client.requireDPoP, proof == nil, !(ignoresDPoP && request.headers.contains("DPoP")) {
            throw .invalidDPoPProof("client \(client.id) must send a DPoP proof with every token request")
        }
        return (
            grantType, TokenRequestContext(parameters: parameters, client: client, proof: proof, now: now)
        )
    }

    /// Signs what a grant decided: the access token, and an ID token when `openid` was granted.
    func signTokens(_ pending: PendingTokens, now: Int64) throws(OAuthError) -> MintedTokens {
        let grant = pending.grant
        let wantsIDToken = grant.scopes.contains(StandardScope.openID)
        // One lock for the key and the ID token's fault, taken before signing, not across it.
        let (signer, fault) = state.withLock { state -> (TokenSigner, IssuerFault?) in
            (
                state.keys.tokenSigner,
                wantsIDToken ? Issuer.takeIDTokenFault(for: grant.kind, in: &state) : nil
            )
        }
        let access = try mintAccessToken(grant, now: now, id: pending.accessTokenID.string, signer: signer)
        var idToken: String?
        if wantsIDToken {
            idToken = try mintIDToken(
                grant, accessToken: access.token, now: now, signer: signer, fault: fault)
        }
        return MintedTokens(
            accessToken: access.token, accessTokenID: access.id, accessTokenExpiresAt: access.expiresAt,
            idToken: idToken, refreshToken: pending.refreshToken, refreshFamilyID: pending.refreshFamilyID,
            expiresIn: access.expiresAt - now,
            tokenType: grant.dpopKeyThumbprint == nil ? "Bearer" : "DPoP")
    }

    /// Ties an access token to its refresh family, so that revoking the family revokes it too
    /// (RFC 7009 §2.1): the returned `jti` names the family, and the family remembers only when
    /// the last of its access tokens expires. Nothing is stored per access token, so a family
    /// refreshed thousands of times costs no more memory than one refreshed once.
    func recordAccessToken(
        _ id: AccessTokenID, expiresAt: Int64, familyID: RefreshFamily.ID, in state: inout IssuerState
    ) -> AccessTokenID {
        state.families[familyID]?.noteAccessToken(expiresAt: expiresAt)
        return id.marked(family: familyID)
    }
}
