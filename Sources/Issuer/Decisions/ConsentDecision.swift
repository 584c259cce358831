import OAuthCore

/// Whether a signed-in user's authorization request may go on to the code without asking
/// (OpenID Connect Core §3.1.2.4).
enum ConsentRequirement: Sendable, Equatable {
    /// Every requested scope was granted to the client before and `prompt=consent` was not
    /// given: the code is issued at once.
    case granted
    /// The consent page is shown.
    case ask
    /// Consent is missing and `prompt=none` forbids asking: this error goes back to the client
    /// (Core §3.1.2.6).
    case refused(OAuthError)
}

/// What a submitted consent form (`POST /u/consent`) does.
enum ConsentDecision: Sendable, Equatable {
    /// The user approved: the grant of `scopes` is recorded under the key, the transaction
    /// ends, and the code is issued.
    case approve(ConsentKey, scopes: [String])
    /// The user refused: the transaction ends and this error goes back to the client
    /// (RFC 6749 §4.1.2.1).
    case deny(OAuthError)
    /// The form says neither; an error page, and the transaction stays.
    case invalidForm
}

extension IssuerState {
    /// Whether `userID` must still consent to `request`: when asked again (`prompt=consent`,
    /// Core §3.1.2.1) or when some requested scope was never granted to the client.
    /// With `prompt=none` the answer is `consent_required` instead of a page (Core §3.1.2.6).
    func consentRequirement(_ request: AuthorizationRequest, userID: String) -> ConsentRequirement {
        let granted = consents[ConsentKey(userID: userID, clientID: request.clientID)] ?? []
        guard request.prompt.contains("consent") || !granted.isSuperset(of: request.scopes) else {
            return .granted
        }
        guard request.prompt.contains("none") else { return .ask }
        return .refused(
            OAuthError("consent_required", "prompt=none was given and the user has not granted every scope"))
    }

    /// What the consent form's `action` does for `userID`'s `request`: `approve` grants the
    /// requested scopes, `deny` is `access_denied` (RFC 6749 §4.1.2.1), anything else is an
    /// invalid form.
    ///
    /// The `consent-refusal-ignored` fault takes a refusal as an approval; its count is spent
    /// here, and only on refusals.
    mutating func decideConsent(action: String?, for request: AuthorizationRequest, userID: String)
        -> ConsentDecision
    {
        let action = action == "deny" && faults.take(.consentRefusalIgnored) ? "approve" : action
        switch action {
        case "approve":
            return .approve(ConsentKey(userID: userID, clientID: request.clientID), scopes: request.scopes)
        case "deny":
            return .deny(OAuthError(OAuthErrorCode.accessDenied, "the user declined the request"))
        default:
            return .invalidForm
        }
    }

    /// Writes what a consent form decided for the transaction `transactionID`: an answer ends
    /// it, and an approval adds the scopes to what the user granted the client.
    mutating func apply(_ decision: ConsentDecision, transactionID: String) {
        switch decision {
        case .approve(let key, let scopes):
            transactions[transactionID] = nil
            consents[key, default: []].formUnion(scopes)
        case .deny:
            transactions[transactionID] = nil
        case .invalidForm:
            break
        }
    }
}
