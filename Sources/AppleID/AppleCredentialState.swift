/// The state of a user's authorization for an app, as
/// `ASAuthorizationAppleIDProvider.getCredentialState(forUserID:)` reports it.
///
/// Raw values are Apple's case names; they are also what the admin API answers.
public enum AppleCredentialState: String, Sendable, Hashable, CaseIterable {
    /// The app revoked the user's tokens (`/auth/revoke`), or the user stopped using Apple ID with
    /// the app when `AppleConfiguration.stateAfterStopUsing` says so.
    case revoked
    /// The user is signed in to the app with Apple ID.
    case authorized
    /// The user never authorized the app, or stopped using Apple ID with it.
    case notFound
    /// The app moved to another developer team (`AppleIDProvider.transferApp(bundleID:toTeam:)`):
    /// the state of the user id the app had under its old team.
    case transferred
}

/// How Apple ends an authorization from its side (`AppleIDProvider.endAuthorization`): the
/// credential state the app reads afterwards.
public enum AppleAuthorizationEnding: String, Sendable, Hashable, CaseIterable {
    /// `revoked`: the app's server revoked the tokens, or Apple revoked the authorization.
    case revoked
    /// `notFound`: Apple no longer knows of a relationship between the user and the app.
    case notFound

    /// The credential state it leaves.
    public var state: AppleCredentialState {
        switch self {
        case .revoked: .revoked
        case .notFound: .notFound
        }
    }
}
