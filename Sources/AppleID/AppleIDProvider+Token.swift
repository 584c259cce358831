import HTTPCore
import JOSE
import JSON
import OAuthCore

/// `POST /auth/token` (docs/issuer.md, "The simulated Apple"): redeem an authorization code or
/// use a refresh token.
extension AppleIDProvider {
    func token(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleEndpointError) {
            let form = try Self.form(of: request)
            guard let grantType = form[OAuthParameter.grantType], !grantType.isEmpty else {
                throw .invalidRequest("grant_type is required")
            }
            guard grantType == GrantType.authorizationCode || grantType == GrantType.refreshToken else {
                throw .unsupportedGrantType(
                    "grant_type \"\(grantType.prefix(64))\" is not supported (authorization_code, refresh_token are)"
                )
            }
            let now = clock.now()
            let clientID = try authenticateClient(form, now: now)
            if grantType == GrantType.authorizationCode {
                return try redeemCode(form, clientID: clientID, now: now)
            }
            return try refresh(form, clientID: clientID, now: now)
        } catch {
            return error.response
        }
    }

    /// Exchanges a code: single use, valid `authorizationCodeLifetime`, for the client it was
    /// issued to. The `id_token` repeats the authorization's claims, `nonce` included when the
    /// authorization had one (Apple does), with a fresh `iat`/`exp` and an `at_hash`.
    private func redeemCode(_ form: [String: String], clientID: String, now: Int64) throws(AppleEndpointError)
        -> HTTPResponse
    {
        guard let code = form[OAuthParameter.code], !code.isEmpty else {
            throw .invalidRequest("code is required")
        }
        // Native codes are issued without a redirect URI, so a `redirect_uri` sent anyway has
        // nothing to match and is ignored (Apple requires it only for codes of the web flow).
        let accessToken = AppleIdentifiers.token(kind: "a", random: random)
        let refreshToken = AppleIdentifiers.token(kind: "r", random: random)
        let accessLifetime = configuration.accessTokenLifetime
        let grant = try state.withLock { state throws(AppleEndpointError) -> AppleGrant in
            state.sweepIfDue(now: now)
            let key = AppleIdentifiers.storageKey(code)
            guard var record = state.codes[key] else {
                throw .invalidGrant(
                    AppleEndpointError.codeExpiredOrRevoked, reason: "unknown or expired code")
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
            guard state.isCurrent(record.grant) else {
                throw .invalidGrant(
                    AppleEndpointError.codeExpiredOrRevoked, reason: "the authorization was revoked since")
            }
            record.used = true
            state.codes[key] = record
            state.refreshTokens[AppleIdentifiers.storageKey(refreshToken)] = RefreshTokenRecord(
                grant: record.grant)
            state.accessTokens[AppleIdentifiers.storageKey(accessToken)] = AccessTokenRecord(
                grant: record.grant, expiresAt: now + accessLifetime)
            return record.grant
        }
        let claims = identityClaims(grant, now: now, nonce: grant.nonce)
        return try tokenResponse(accessToken: accessToken, refreshToken: refreshToken, claims: claims)
    }

    /// A new access token and `id_token` for a refresh token; no new refresh token (Apple's
    /// refresh tokens do not rotate) and no `nonce` (no request of the app is being answered).
    private func refresh(_ form: [String: String], clientID: String, now: Int64) throws(AppleEndpointError)
        -> HTTPResponse
    {
        guard let refreshToken = form[OAuthParameter.refreshToken], !refreshToken.isEmpty else {
            throw .invalidRequest("refresh_token is required")
        }
        let accessToken = AppleIdentifiers.token(kind: "a", random: random)
        let accessLifetime = configuration.accessTokenLifetime
        let grant = try state.withLock { state throws(AppleEndpointError) -> AppleGrant in
            state.sweepIfDue(now: now)
            guard let record = state.refreshTokens[AppleIdentifiers.storageKey(refreshToken)] else {
                throw .invalidGrant(AppleEndpointError.tokenExpiredOrRevoked, reason: "unknown refresh token")
            }
            guard record.grant.clientID == clientID else {
                throw .invalidGrant(
                    "client_id mismatch. The token was not issued to \(clientID.prefix(155)).")
            }
            guard state.isCurrent(record.grant) else {
                throw .invalidGrant(
                    AppleEndpointError.tokenExpiredOrRevoked, reason: "the authorization was revoked")
            }
            state.accessTokens[AppleIdentifiers.storageKey(accessToken)] = AccessTokenRecord(
                grant: record.grant, expiresAt: now + accessLifetime)
            return record.grant
        }
        let claims = identityClaims(grant, now: now, nonce: nil)
        return try tokenResponse(accessToken: accessToken, refreshToken: nil, claims: claims)
    }

    private func tokenResponse(accessToken: String, refreshToken: String?, claims: JWTClaims)
        throws(AppleEndpointError) -> HTTPResponse
    {
        let idToken: String
        do {
            idToken = try signIdentityToken(claims, binding: [.accessToken: accessToken])
        } catch {
            throw .serverError("cannot sign the id_token: \(error.message)")
        }
        var body: [String: JSONValue] = [
            OAuthParameter.accessToken: .string(accessToken), OAuthParameter.tokenType: "Bearer",
            OAuthParameter.expiresIn: .int(configuration.accessTokenLifetime),
            OAuthParameter.idToken: .string(idToken),
        ]
        if let refreshToken { body[OAuthParameter.refreshToken] = .string(refreshToken) }
        return .json(.object(body), headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
    }

    // MARK: - Shared by /auth/token and /auth/revoke

    /// Checks `client_id` and `client_secret` and returns the client id.
    ///
    /// The secret must be valid (`AppleClientSecret`), and its team must be the team the app
    /// belongs to: an unknown app, or a secret of another team, is `invalid_client`.
    func authenticateClient(_ form: [String: String], now: Int64) throws(AppleEndpointError) -> String {
        guard let clientID = form[OAuthParameter.clientID], !clientID.isEmpty else {
            throw .invalidRequest("client_id is required")
        }
        guard let secret = form[OAuthParameter.clientSecret], !secret.isEmpty else {
            throw .invalidRequest("client_secret is required")
        }
        let teamID = try AppleClientSecret.verify(
            secret, clientID: clientID, now: now, maximumLifetime: configuration.clientSecretMaximumLifetime,
            leeway: configuration.clientSecretLeeway
        ) { teamID, keyID in
            state.withLock { $0.developerKeys[DeveloperKeyID(teamID: teamID, keyID: keyID)] }
        }
        guard let owner = state.withLock({ $0.apps[clientID] }) else {
            throw .invalidClient("client_id \"\(clientID.prefix(155))\" is not a known app")
        }
        guard owner == teamID else {
            throw .invalidClient(
                "client_id \(clientID.prefix(155)) belongs to team \(owner), not to \(teamID.prefix(32))")
        }
        return clientID
    }

    /// The form body as a dictionary; a wrong content type, bad encoding or a repeated
    /// parameter (RFC 6749 §3.1) is `invalid_request`.
    static func form(of request: HTTPRequest) throws(AppleEndpointError) -> [String: String] {
        let parameters: FormParameters
        do {
            parameters = try request.formParameters()
        } catch {
            throw .invalidRequest("the body is not a usable form: \(error.message)")
        }
        guard let form = parameters.uniqueDictionary else {
            throw .invalidRequest("parameter \(parameters.repeatedNames[0].prefix(64)) is repeated")
        }
        return form
    }
}
