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
    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        do {
            let parameters = try OAuthRequestParameters(request: request)
            let client = try authenticateClient(parameters, request: request)
            let token = try parameters.required(OAuthParameter.token)
            if parameters[OAuthParameter.tokenTypeHint] == "access_token" {
                if !revokeAccessToken(token, client: client, now: now) {
                    revokeRefreshToken(token, client: client, now: now)
                }
            } else if !revokeRefreshToken(token, client: client, now: now) {
                revokeAccessToken(token, client: client, now: now)
            }
            return HTTPResponse(status: 200, headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
        } catch {
            return error.response
        }
    }

    /// Whether the token is one of our refresh tokens; revokes its family when it is the client's.
    @discardableResult
    private func revokeRefreshToken(_ token: String, client: ClientRegistration, now: Int64) -> Bool {
        let hash = TokenHash(of: token)
        return state.withLock { state in
            guard let record = state.presentedRefreshToken(hash, token: token, now: now)?.record else {
                return false
            }
            if state.families[record.familyID]?.grant.clientID == client.id {
                state.revokeGrant(familyID: record.familyID, reason: .revokedByClient, now: now)
            }
            return true
        }
    }

    /// Whether the token is one of our access tokens; revokes it when it is the client's and live.
    @discardableResult
    private func revokeAccessToken(_ token: String, client: ClientRegistration, now: Int64) -> Bool {
        guard token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2,
            let verified = try? verifyAccessToken(token, now: nil)
        else { return false }
        if verified.clientID == client.id, verified.expiresAt > now {
            state.withLock { $0.revokedAccessTokens[verified.id] = verified.expiresAt }
        }
        return true
    }
}
