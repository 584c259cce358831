import HTTPCore

extension SignInClient {
    /// Signs out: calls the end-session endpoint with `id_token_hint` when asked (OpenID Connect
    /// RP-Initiated Logout §2), then clears local tokens whatever the issuer answered.
    ///
    /// With a post-logout redirect URI the request also carries a fresh `state`, which the
    /// issuer is to send back on the redirect (§3). A redirect with another `state` does not
    /// count as ended at the issuer; one without `state` does, since a logout response carries
    /// nothing to protect (field bug 8: issuers that relay the logout through another hop drop
    /// it, and AppAuth-iOS failed such sign-outs, #956).
    ///
    /// - Returns: whether the end-session call was made and answered without an error status
    ///   (and, for a redirect, without a foreign `state`).
    @discardableResult
    public func signOut(callEndSession: Bool = true) async throws(SignInError) -> Bool {
        let options = try configuredOptions()
        let session = try? loadSession()
        var endedAtIssuer = false
        if callEndSession, let session, let endpoint = try? await providerMetadata().endSessionEndpoint {
            var parameters: FormParameters = [
                "id_token_hint": session.idToken, "client_id": options.clientID,
            ]
            var logoutState: String?
            if let uri = options.postLogoutRedirectURI {
                let state = randomToken()
                parameters.append("post_logout_redirect_uri", uri)
                parameters.append("state", state)
                logoutState = state
            }
            let url = FormURLEncoding.appendingQuery(parameters, to: endpoint)
            if let response = try? await send(HTTPRequest(url: url), endpoint: "end_session") {
                endedAtIssuer = response.status < 400
                if let logoutState, (300..<400).contains(response.status),
                    let location = response.headers["Location"]
                {
                    let query = URLParts.query(of: location).flatMap { try? FormURLEncoding.decode($0) }
                    let returned = query?["state"]
                    if returned == nil, options.profile.has(.logoutStateRequired) {
                        // The faulty SDK fails the sign-out here, and the app keeps the session.
                        throw SignInError(
                            .missingState,
                            "state mismatch: expected \(logoutState) but the logout response has none")
                    }
                    if let returned, returned != logoutState { endedAtIssuer = false }
                }
            }
        }
        try clearSession()
        return endedAtIssuer
    }
}
