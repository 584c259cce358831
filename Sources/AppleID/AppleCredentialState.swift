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
    /// The app moved to another developer team (`AppleIDProvider.transferApp(bundleID:toTeam:)`).
    case transferred
}
