import HTTPCore
import OAuthCore

/// Why a logout request cannot be followed as asked: the browser is shown this message (the
/// session has ended all the same).
struct LogoutRefusal: Error, Sendable, Equatable {
    var message: String
}

/// The parameters of an RP-Initiated Logout 1.0 §2 request that decide where the browser goes.
struct LogoutRequestFacts: Sendable, Equatable {
    /// Parameters of §2 that may each be sent at most once.
    static let singleParameters: Set<String> = [
        OAuthParameter.idTokenHint, OAuthParameter.clientID, OAuthParameter.postLogoutRedirectURI,
        OAuthParameter.state, "logout_hint", OAuthParameter.uiLocales,
    ]

    var idTokenHint: String?
    var clientID: String?
    var postLogoutRedirectURI: String?
    var state: String?

    init(
        idTokenHint: String? = nil, clientID: String? = nil, postLogoutRedirectURI: String? = nil,
        state: String? = nil
    ) {
        self.idTokenHint = idTokenHint
        self.clientID = clientID
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.state = state
    }

    /// The facts of a request's parameters (query or form). As for authorization requests, an
    /// empty parameter counts as absent (RFC 6749 §3.1).
    /// - Throws: a refusal when a parameter of §2 is given more than once.
    init(_ parameters: [FormParameters.Pair]) throws(LogoutRefusal) {
        let pairs = parameters.filter { !$0.value.isEmpty }
        var seen = Set<String>()
        for pair in pairs where LogoutRequestFacts.singleParameters.contains(pair.name) {
            guard seen.insert(pair.name).inserted else {
                throw LogoutRefusal(message: "The parameter \(pair.name) is given more than once.")
            }
        }
        func single(_ name: String) -> String? { pairs.first { $0.name == name }?.value }
        self.init(
            idTokenHint: single(OAuthParameter.idTokenHint), clientID: single(OAuthParameter.clientID),
            postLogoutRedirectURI: single(OAuthParameter.postLogoutRedirectURI),
            state: single(OAuthParameter.state))
    }
}

/// A logout request's `id_token_hint`, as the issuer verified it (RP-Initiated Logout 1.0 §2:
/// an ID token this issuer issued, possibly expired).
enum LogoutIDTokenHint: Sendable, Equatable {
    case absent
    /// Not an ID token this issuer signed.
    case notIssuedHere
    /// One of this issuer's ID tokens, with its `aud` and `azp`.
    case verified(audiences: [String], authorizedParty: String?)
}

/// Where the browser goes after signing out.
enum LogoutDecision: Sendable, Equatable {
    /// The issuer's own signed-out page.
    case signedOutPage
    /// The client's registered post-logout redirect URI, with `state` to send back (§3).
    case redirect(to: String, state: String?)
    /// The request cannot be followed; an error page says why.
    case refused(LogoutRefusal)
}

extension IssuerState {
    /// Where a logout request sends the browser (RP-Initiated Logout 1.0 §2–§3). Redirection
    /// needs a client, named by `client_id` or by the hint's audience (its only audience, or its
    /// `azp`), whose registered post-logout redirect URIs include the one given, exactly. With
    /// both, `client_id` must be an audience of the hint. A `client_id` that names no client is
    /// refused even without a redirect URI.
    ///
    /// With the `post-logout-redirect-prefix` deviation, a redirect URI that starts with a
    /// registered one is redirected to as given.
    func logoutDecision(
        _ request: LogoutRequestFacts, hint: LogoutIDTokenHint, deviations: Set<IssuerDeviation>
    ) -> LogoutDecision {
        var clientID = request.clientID
        switch hint {
        case .absent:
            break
        case .notIssuedHere:
            return .refused(LogoutRefusal(message: "The id_token_hint was not issued by this issuer."))
        case .verified(let audiences, let authorizedParty):
            if let given = clientID {
                guard audiences.contains(given) else {
                    return .refused(
                        LogoutRefusal(message: "The client_id is not the audience of the id_token_hint."))
                }
            } else {
                clientID = audiences.count == 1 ? audiences[0] : authorizedParty
            }
        }
        let client = clientID.flatMap { clients[$0] }
        if request.clientID != nil, client == nil {
            return .refused(LogoutRefusal(message: "No application with this client_id is registered."))
        }
        guard let redirectURI = request.postLogoutRedirectURI else { return .signedOutPage }
        guard let client else {
            return .refused(
                LogoutRefusal(
                    message:
                        "A post_logout_redirect_uri needs client_id or id_token_hint to name the application."
                ))
        }
        let registered = client.postLogoutRedirectURIs
        let prefixMatches =
            deviations.contains(.postLogoutRedirectPrefix)
            && registered.contains { redirectURI.hasPrefix($0) }
        guard registered.contains(redirectURI) || prefixMatches else {
            return .refused(
                LogoutRefusal(message: "The post_logout_redirect_uri is not registered for this application.")
            )
        }
        return .redirect(to: redirectURI, state: request.state)
    }
}

/// Whether a logout request ends the session now or asks the End-User first.
///
/// RP-Initiated Logout 1.0 §2: "the OP SHOULD ask the End-User whether to log out of the OP as
/// well". `html` pages end the session at once, as they always have. `javascript` pages ask,
/// and only a POST whose parameters include `logout=yes`, which the question page's script
/// adds when the user presses Yes, ends it. A GET never confirms: the session cookie is
/// `SameSite=Lax`, which browsers send on a cross-site top-level GET but not on a cross-site
/// POST (draft-ietf-httpbis-rfc6265bis, "SameSite"), so a link on any site could otherwise
/// sign the user out.
enum LogoutConfirmation: Sendable, Equatable {
    /// End the session and answer as RP-Initiated Logout has it.
    case endSession
    /// End nothing; show the question.
    case ask

    /// The form field a confirmed logout carries, with the value `yes`.
    static let parameter = "logout"

    /// - Parameter parameters: the request's query (GET) or form (POST); `nil` when unreadable.
    init(pageStyle: LoginPageStyle, method: HTTPMethod, parameters: FormParameters?) {
        switch pageStyle {
        case .html:
            self = .endSession
        case .javascript:
            let confirmed =
                method == .post
                && parameters?.values(for: LogoutConfirmation.parameter).contains("yes") == true
            self = confirmed ? .endSession : .ask
        }
    }
}
