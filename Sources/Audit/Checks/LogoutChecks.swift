import HTTPCore
import OAuthCore
import Simulator
import WebAuthSession

extension AuditRun {
    /// RP-Initiated Logout 1.0 in the shared sheet that holds the test user's session: first a
    /// post-logout redirect URI that is not registered, then the real sign-out, then whether the
    /// session is gone (`SignOutCheck`'s probes: `prompt=none`, then the login form).
    func logoutChecks() async throws {
        let checks: [AuditCheck] = [.logoutRedirectExact, .logoutStateEchoed, .logoutVerified]
        guard let endpoint = metadata?.endSessionEndpoint else {
            skipAll(checks, "discovery has no end_session_endpoint")
            return
        }
        guard let registered = target.postLogoutRedirectURI else {
            skipAll(checks, "no post-logout redirect URI is registered (--post-logout-redirect-uri)")
            return
        }
        func endSession(redirectTo uri: String, state: String, idTokenHint: String?) async throws -> SheetEnd
        {
            var parameters = FormParameters()
            if let idTokenHint { parameters.append(OAuthParameter.idTokenHint, idTokenHint) }
            parameters.append(OAuthParameter.clientID, target.client.id)
            parameters.append(OAuthParameter.postLogoutRedirectURI, uri)
            parameters.append(OAuthParameter.state, state)
            return try await probe.sheet(
                FormURLEncoding.appendingQuery(parameters, to: endpoint), redirectURI: uri, purpose: .signOut)
        }
        try await check(.logoutRedirectExact) {
            let flow = try await mainFlow()
            let variant = RedirectURIVariants.extraPath(registered)
            let end = try await endSession(
                redirectTo: variant, state: probe.randomString(), idTokenHint: flow.answer.idToken)
            if let url = end.callbackURL, RedirectURIVariants.landed(url, on: variant) {
                return .broken("the sheet was sent to \(variant), which is not registered (\(registered) is)")
            }
            return .pass("\(variant) was not redirected to: \(end.described)")
        }
        // The first request may have ended the session; the sign-out proper needs one.
        var signedOut: (end: SheetEnd, state: String)?
        try await check(.logoutStateEchoed) {
            let flow = try await codeFlow()
            let state = probe.randomString()
            let end = try await endSession(
                redirectTo: registered, state: state, idTokenHint: flow.answer.idToken)
            signedOut = (end, state)
            guard let url = end.callbackURL, RedirectURIVariants.landed(url, on: registered) else {
                return .skip("the sign-out did not come back to \(registered): \(end.described)")
            }
            let returned = end.parameters?[OAuthParameter.state]
            return returned == state
                ? .pass("the post-logout redirect came back with the state sent")
                : .broken(
                    returned == nil
                        ? "the post-logout redirect has no state"
                        : "the post-logout redirect's state is not the one sent")
        }
        try await check(.logoutVerified) {
            guard let signedOut else { return .skip("the sign-out did not run") }
            guard signedOut.end.callbackURL != nil else {
                return .skip(
                    "the sign-out did not come back to the app, so the audit cannot tell when it was done")
            }
            return try await sessionEnded()
        }
    }

    /// Asks the shared browser store whether the test user's session outlived the sign-out:
    /// `prompt=none` with `id_token_hint`, then without `prompt`, as `SignOutCheck` asks.
    private func sessionEnded() async throws -> Verdict {
        var notes: [String] = []
        for request in [SignOutCheck.StoreRequest.promptNone, .plain] {
            // Only `openid`, as the sign-out check asks: a scope such as `offline_access` makes
            // some issuers refuse a request without `prompt=consent` (pyop).
            var extra: [String: String] = [OAuthParameter.scope: "openid"]
            switch request {
            case .promptNone:
                extra[OAuthParameter.prompt] = "none"
                if let hint = caches.main?.answer.idToken { extra[OAuthParameter.idTokenHint] = hint }
            case .plain:
                extra[OAuthParameter.prompt] = ""
            }
            let opening = try await opening(
                authorizationParameters(extra: extra).parameters, client: target.client)
            guard case .sheet(let url, _) = opening else {
                notes.append("the push of the checking request was refused")
                continue
            }
            let outcome = try await probe.sheetOutcome(
                url, redirectURI: target.redirectURI, person: SignOutCheck.checkingPerson)
            let observation = SignOutCheck.observation(of: outcome, request: request)
            switch observation {
            case .noSessionInStore, .loginFormShown, .refreshRefused:
                return .pass("the session is gone: \(observation.description)")
            case .sessionInStore, .refreshAccepted:
                return .broken("the sign-out came back to the app, but \(observation.description)")
            case .notChecked(let why):
                notes.append(why)
            }
        }
        return .skip("the session's end could not be verified: \(notes.joined(separator: "; "))")
    }
}
