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
            let grantType = try AppleGrantType(form: form)
            let now = clock.now()
            let clientID = try authenticateClient(form, now: now)
            switch grantType {
            case .authorizationCode: return try redeemCode(form, clientID: clientID, now: now)
            case .refreshToken: return try refresh(form, clientID: clientID, now: now)
            }
        } catch {
            return error.response
        }
    }

    /// Exchanges a code (`AppleProviderState.decideCodeRedemption`). The `id_token` repeats the
    /// authorization's claims, `nonce` included when the authorization had one (Apple does),
    /// with a fresh `iat`/`exp` and an `at_hash`.
    private func redeemCode(_ form: [String: String], clientID: String, now: Int64) throws(AppleEndpointError)
        -> HTTPResponse
    {
        guard let code = form[OAuthParameter.code], !code.isEmpty else {
            throw .invalidRequest("code is required")
        }
        let accessToken = AppleIdentifiers.token(kind: "a", random: random)
        let refreshToken = AppleIdentifiers.token(kind: "r", random: random)
        return try issueTokens(accessToken, refreshToken, now: now) {
            state, lifetime throws(AppleEndpointError) in
            try state.decideCodeRedemption(
                codeKey: AppleIdentifiers.storageKey(code), clientID: clientID, accessTokenLifetime: lifetime,
                now: now)
        }
    }

    /// A new access token and `id_token` for a refresh token (`AppleProviderState.decideRefresh`).
    private func refresh(_ form: [String: String], clientID: String, now: Int64) throws(AppleEndpointError)
        -> HTTPResponse
    {
        guard let refreshToken = form[OAuthParameter.refreshToken], !refreshToken.isEmpty else {
            throw .invalidRequest("refresh_token is required")
        }
        let accessToken = AppleIdentifiers.token(kind: "a", random: random)
        return try issueTokens(accessToken, nil, now: now) { state, lifetime throws(AppleEndpointError) in
            try state.decideRefresh(
                tokenKey: AppleIdentifiers.storageKey(refreshToken), clientID: clientID,
                accessTokenLifetime: lifetime, now: now)
        }
    }

    /// Asks `decide` under the lock, stores the tokens drawn for the request as it decided, and
    /// answers with them and a signed `id_token`.
    private func issueTokens(
        _ accessToken: String, _ refreshToken: String?, now: Int64,
        _ decide: (inout AppleProviderState, Int64) throws(AppleEndpointError) -> AppleTokenDecision
    ) throws(AppleEndpointError) -> HTTPResponse {
        let accessLifetime = configuration.accessTokenLifetime
        let decision = try state.withLock { state throws(AppleEndpointError) -> AppleTokenDecision in
            state.sweepIfDue(now: now)
            let decision = try decide(&state, accessLifetime)
            state.apply(
                decision, accessKey: AppleIdentifiers.storageKey(accessToken),
                refreshKey: refreshToken.map(AppleIdentifiers.storageKey))
            return decision
        }
        let claims = identityClaims(decision.grant, now: now, nonce: decision.nonce)
        return try tokenResponse(
            accessToken: accessToken, refreshToken: decision.issuesRefreshToken ? refreshToken : nil,
            claims: claims)
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
        try state.withLock { state throws(AppleEndpointError) in
            try state.checkClient(clientID, authenticatedAs: teamID)
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
