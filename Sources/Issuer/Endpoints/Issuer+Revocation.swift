import HTTPCore
import OAuthCore

// `POST /oauth/revoke` (RFC 7009).
extension Issuer {
    /// Revokes a refresh token (its whole family, and the access tokens issued in it) or an
    /// access token (its `jti`, until it expires), after authenticating the client as the token
    /// endpoint does.
    ///
    /// RFC 7009 §2.2: unknown, expired or already revoked tokens answer 200. A token of another
    /// client also answers 200 and is left alone, so that the endpoint tells a client nothing
    /// about tokens that are not its own. `token_type_hint` only decides which kind is looked
    /// for first (§2.1).
    ///
    /// Deviations: `revocation-ignored` answers 200 after the client and the request are
    /// checked, and looks no token up; `revocation-rejects-unknown` answers an unknown token
    /// 400 `invalid_request` (`RevocationDecision.refusal`).
    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        do throws(OAuthError) {
            let parameters = try OAuthRequestParameters(request: request)
            let client = try authenticateClient(parameters, request: request)
            let token = try parameters.required(OAuthParameter.token)
            if !tenant.deviates(.revocationIgnored) {
                var outcome = RevocationDecision.notFound
                for kind in RevocableToken.lookupOrder(hint: parameters[OAuthParameter.tokenTypeHint]) {
                    outcome = revoke(token, as: kind, clientID: client.id, now: now)
                    if outcome != .notFound { break }
                }
                if let refusal = outcome.refusal(rejectsUnknown: tenant.deviates(.revocationRejectsUnknown)) {
                    throw refusal
                }
            }
            return HTTPResponse(status: 200, headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
        } catch {
            return error.response
        }
    }

    /// Looks the token up as `kind` and revokes it as the state's rules decide.
    private func revoke(_ token: String, as kind: RevocableToken, clientID: String, now: Int64)
        -> RevocationDecision
    {
        switch kind {
        case .refreshToken:
            let hash = TokenHash(of: token)
            return state.withLock { $0.revokeRefreshToken(hash, token: token, clientID: clientID, now: now) }
        case .accessToken:
            guard token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2,
                let verified = try? verifyAccessToken(token, now: nil)
            else { return .notFound }
            return state.withLock {
                $0.revokeAccessToken(
                    id: verified.id, issuedTo: verified.clientID, expiresAt: verified.expiresAt,
                    clientID: clientID,
                    now: now)
            }
        }
    }
}
