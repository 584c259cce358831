import HTTPCore

extension SignInClient {
    /// Signs out: calls the end-session endpoint with `id_token_hint` when asked (OpenID Connect
    /// RP-Initiated Logout §2), then clears local tokens whatever the issuer answered.
    ///
    /// - Returns: whether the end-session call was made and answered without an error status.
    @discardableResult
    public func signOut(callEndSession: Bool = true) async throws(SignInError) -> Bool {
        let options = try configuredOptions()
        let session = try? loadSession()
        var endedAtIssuer = false
        if callEndSession, let session, let endpoint = try? await providerMetadata().endSessionEndpoint {
            var parameters: FormParameters = [
                "id_token_hint": session.idToken, "client_id": options.clientID,
            ]
            if let uri = options.postLogoutRedirectURI { parameters.append("post_logout_redirect_uri", uri) }
            let url = FormURLEncoding.appendingQuery(parameters, to: endpoint)
            if let response = try? await send(HTTPRequest(url: url), endpoint: "end_session") {
                endedAtIssuer = response.status < 400
            }
        }
        try clearSession()
        return endedAtIssuer
    }
}
