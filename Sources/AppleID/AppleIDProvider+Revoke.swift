import HTTPCore
import OAuthCore

/// `POST /auth/revoke` (RFC 7009 as Apple serves it).
extension AppleIDProvider {
    /// Revokes a refresh or access token, and with it the whole authorization: every token and
    /// pending code of that account for that app dies, the credential state becomes `revoked`,
    /// and the next authorization is a first one again. 200 with an empty body, also for a
    /// token the provider does not know (RFC 7009 §2.2).
    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleEndpointError) {
            let form = try Self.form(of: request)
            guard let token = form[OAuthParameter.token], !token.isEmpty else {
                throw .invalidRequest("token is required")
            }
            let now = clock.now()
            let clientID = try authenticateClient(form, now: now)
            let key = AppleIdentifiers.storageKey(token)
            try state.withLock { state throws(AppleEndpointError) in
                // The hint only orders the lookup (RFC 7009 §2.1); unknown hints are ignored.
                let refreshFirst = form[OAuthParameter.tokenTypeHint] != "access_token"
                let refreshGrant = state.refreshTokens[key]?.grant
                let accessGrant = state.accessTokens[key]?.grant
                guard let grant = refreshFirst ? (refreshGrant ?? accessGrant) : (accessGrant ?? refreshGrant)
                else {
                    return
                }
                guard grant.clientID == clientID else {
                    throw .invalidGrant(
                        "client_id mismatch. The token was not issued to \(clientID.prefix(155)).")
                }
                if state.isCurrent(grant) { state.end(grant.authorization, state: .revoked) }
            }
            return HTTPResponse(status: 200, headers: ["Cache-Control": "no-store"])
        } catch {
            return error.response
        }
    }
}
