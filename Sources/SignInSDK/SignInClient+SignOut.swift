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
                endedAtIssuer = try Self.endedAtIssuer(
                    response, sentState: logoutState, profile: options.profile)
            }
        }
        try clearSession()
        return endedAtIssuer
    }

    /// Whether the end-session answer ends the session at the issuer: no error status, and a
    /// redirect that carries a `state` carries the one sent (RP-Initiated Logout §3). A redirect
    /// without `state` counts as ended, except under `logoutStateRequired` (field bug 8), which
    /// throws `missingState` so that the sign-out fails and the app keeps its session.
    private static func endedAtIssuer(_ response: HTTPResponse, sentState: String?, profile: BehaviorProfile)
        throws(SignInError) -> Bool
    {
        guard response.status < 400 else { return false }
        guard let sentState, (300..<400).contains(response.status),
            let location = response.headers["Location"]
        else { return true }
        guard let returned = (try? URLParts.queryParameters(of: location))?["state"] else {
            if profile.has(.logoutStateRequired) {
                throw SignInError(
                    .missingState, "state mismatch: expected \(sentState) but the logout response has none")
            }
            return true
        }
        return returned == sentState
    }
}
