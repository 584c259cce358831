import HTTPCore
import OAuthCore

/// What came back to the app from a sign-out at the issuer. Local tokens are cleared in every
/// case.
///
/// The app sees only what the issuer sends back, so none of these says that the issuer's session
/// ended: an issuer may redirect back with the `state` whether or not it ended anything.
public struct SignOutOutcome: Sendable, Hashable {
    /// The end-session request's fate (OpenID Connect RP-Initiated Logout 1.0).
    public enum EndSession: Sendable, Hashable {
        /// Not sent: the app asked for a local sign-out, held no session, or the issuer
        /// advertises no `end_session_endpoint`.
        case notRequested
        /// The issuer redirected to the post-logout redirect URI with the `state` the app sent
        /// (or with none: field bug 8). RP-Initiated Logout §3 makes that redirect the OP's
        /// answer once it has logged the End-User out, but it proves nothing by itself: an
        /// issuer that ended no session (the request carried no cookie, or it ignores the
        /// request) answers the same way.
        case acknowledged
        /// No answer either way: the person closed the sheet on the issuer's own page (no
        /// post-logout redirect URI), or the back-channel request was answered without error.
        case unconfirmed(String)
        /// The issuer refused (an error page or status), the network failed, or the redirect
        /// carried a foreign `state`: its session may well go on.
        case failed(String)
    }

    public var endSession: EndSession

    public init(endSession: EndSession) { self.endSession = endSession }

    /// Whether the issuer answered the end-session request as one it carried out.
    public var acknowledgedByIssuer: Bool { endSession == .acknowledged }
}

extension SignInClient {
    /// Signs out: sends the end-session request when asked (OpenID Connect RP-Initiated Logout
    /// 1.0 §2), then clears local tokens whatever the issuer answered.
    ///
    /// As AppAuth (`OIDEndSessionRequest` through the external user agent) and Auth0.swift
    /// (`clearSession` through `ASWebAuthenticationSession`) do, the request is opened in the web
    /// sheet, with the same cookie jar as sign-in: a shared session sends the issuer its session
    /// cookie, so the issuer can end that session and clear the cookie; an ephemeral one has no
    /// cookie to send or clear. The person confirms the sign-out if the issuer asks. With a
    /// post-logout redirect URI the request carries a fresh `state`, and the sheet closes when the
    /// issuer redirects there (§3); a redirect with another `state` is a failure, one without
    /// `state` an acknowledgement all the same (field bug 8: issuers that relay the logout through
    /// another hop drop it, and AppAuth-iOS failed such sign-outs, #956). Without one the issuer
    /// shows its own page and the person closes the sheet.
    ///
    /// The `back-channel-logout` fault (field bug 14) sends the request from the SDK's HTTP
    /// client instead, without the browser's cookies.
    @discardableResult
    public func signOut(callEndSession: Bool = true) async throws(SignInError) -> SignOutOutcome {
        let options = try configuredOptions()
        let session = try? loadSession()
        var outcome = SignOutOutcome(endSession: .notRequested)
        if callEndSession, let session, let endpoint = try? await providerMetadata().endSessionEndpoint {
            var parameters: FormParameters = [
                OAuthParameter.idTokenHint: session.idToken, OAuthParameter.clientID: options.clientID,
            ]
            var logoutState: String?
            if let uri = options.postLogoutRedirectURI {
                let state = randomToken()
                parameters.append(OAuthParameter.postLogoutRedirectURI, uri)
                parameters.append(OAuthParameter.state, state)
                logoutState = state
            }
            let url = FormURLEncoding.appendingQuery(parameters, to: endpoint)
            if options.profile.has(.backChannelLogout) {
                outcome.endSession = try await backChannelEndSession(
                    url, sentState: logoutState, profile: options.profile)
            } else {
                outcome.endSession = try await endSessionInSheet(
                    url, options: options, sentState: logoutState)
            }
        }
        try clearSession()
        return outcome
    }

    /// The end-session request in the web sheet.
    private func endSessionInSheet(_ url: String, options: SignInOptions, sentState: String?)
        async throws(SignInError) -> SignOutOutcome.EndSession
    {
        guard let agent = environment.webAuthentication else {
            throw SignInError(.invalidConfiguration, "no web authentication user agent is available")
        }
        if !options.profile.has(.presentWhileInactive), !agent.canPresent() {
            guard await agent.waitUntilPresentable() else {
                return .failed("no foreground-active scene to present the sign-out sheet")
            }
        }
        // Without a post-logout redirect URI nothing comes back to the app; the sheet watches
        // for the sign-in redirect URI, which an end-session request never leads to.
        let callbackURI = options.postLogoutRedirectURI ?? options.redirectURI
        let callback: String
        do {
            callback = try await agent.authenticate(
                WebAuthenticationRequest(
                    url: url, redirectURI: callbackURI,
                    prefersEphemeralSession: Self.usesEphemeralWebSession(options), purpose: .signOut))
        } catch {
            switch error.kind {
            case .canceledLogin: return .unconfirmed(error.message)
            case .presentationContextInvalid, .alreadyPresenting, .failed: return .failed(error.message)
            }
        }
        return try Self.logoutRedirectOutcome(callback, sentState: sentState, profile: options.profile)
    }

    /// The end-session request from the SDK's own HTTP client (`back-channel-logout`).
    private func backChannelEndSession(_ url: String, sentState: String?, profile: BehaviorProfile)
        async throws(SignInError) -> SignOutOutcome.EndSession
    {
        let response: HTTPResponse
        do {
            response = try await send(HTTPRequest(url: url), endpoint: "end_session")
        } catch {
            return .failed(error.message)
        }
        guard response.status < 400 else {
            return .failed("the end-session endpoint answered \(response.status)")
        }
        guard (300..<400).contains(response.status), let location = response.headers["Location"],
            sentState != nil
        else { return .unconfirmed("the end-session endpoint answered \(response.status)") }
        return try Self.logoutRedirectOutcome(location, sentState: sentState, profile: profile)
    }

    /// What a post-logout redirect says (RP-Initiated Logout §3): the `state` sent comes back,
    /// or none does, which counts as acknowledged except under `logoutStateRequired` (field bug 8):
    /// that throws `missingState`, so the sign-out fails and the app keeps its session.
    private static func logoutRedirectOutcome(
        _ location: String, sentState: String?, profile: BehaviorProfile
    )
        throws(SignInError) -> SignOutOutcome.EndSession
    {
        guard let sentState else { return .acknowledged }
        guard let returned = (try? URLParts.queryParameters(of: location))?[OAuthParameter.state] else {
            if profile.has(.logoutStateRequired) {
                throw SignInError(
                    .missingState, "state mismatch: expected \(sentState) but the logout response has none")
            }
            return .acknowledged
        }
        guard returned == sentState else {
            return .failed("the post-logout redirect carried a state the app did not send")
        }
        return .acknowledged
    }
}
