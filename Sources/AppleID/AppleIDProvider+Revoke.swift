import HTTPCore
import OAuthCore

/// `POST /auth/revoke` (RFC 7009 as Apple serves it).
extension AppleIDProvider {
    /// Revokes a refresh or access token, and with it the whole authorization: every token and
    /// pending code of that account for that app dies, the credential state becomes `revoked`,
    /// and the next authorization is a first one again. 200 with an empty body, also for a
    /// token the provider does not know (RFC 7009 §2.2). The rules are
    /// `AppleProviderState.decideRevocation`.
    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleEndpointError) {
            let form = try Self.form(of: request)
            guard let token = form[OAuthParameter.token], !token.isEmpty else {
                throw .invalidRequest("token is required")
            }
            let now = clock.now()
            let clientID = try authenticateClient(form, now: now)
            let key = AppleIdentifiers.storageKey(token)
            let hint = form[OAuthParameter.tokenTypeHint]
            try state.withLock { state throws(AppleEndpointError) in
                state.apply(try state.decideRevocation(tokenKey: key, hint: hint, clientID: clientID))
            }
            return HTTPResponse(status: 200, headers: ["Cache-Control": "no-store"])
        } catch {
            return error.response
        }
    }
}
