/// Native Sign in with Apple on the device: `ASAuthorizationAppleIDProvider`'s contract.
public protocol AppleAuthorizationProvider: Sendable {
    /// Asks the user to authorize the app; `nonce` is the value for the identity token's `nonce`
    /// claim (apps send the SHA-256 of a raw nonce, hex-encoded).
    func authorize(scopes: [AppleAuthorizationScope], nonce: String?) async throws(AppleAuthorizationFailure)
        -> AppleAuthorization

    /// `getCredentialState(forUserID:completion:)`: the state of the authorization of this app by
    /// the Apple ID whose user identifier (`ASAuthorizationAppleIDCredential.user`) is `userID`.
    func credentialState(forUserID userID: String) async throws(AppleAuthorizationFailure)
        -> AppleIDCredentialState

    /// Observes `ASAuthorizationAppleIDProvider.credentialRevokedNotification`, which the system
    /// posts to a running app when the user's credentials "have been revoked and they should be
    /// signed out". `handler` runs once per notification for as long as the app's process lives;
    /// a process that is not running is not told (it learns at its next launch, by asking
    /// `credentialState(forUserID:)`).
    func observeCredentialRevocation(_ handler: @escaping @Sendable () async -> Void)
}

/// `ASAuthorizationAppleIDProvider.CredentialState`: what Apple says of a user identifier for
/// this app. Raw values are Apple's case names.
public enum AppleIDCredentialState: String, Sendable, Hashable, CaseIterable {
    /// "The user is authorized."
    case authorized
    /// "The given user's authorization has been revoked and they should be signed out."
    case revoked
    /// "The user hasn't established a relationship with Sign in with Apple": never authorized
    /// the app, or stopped using Apple ID with it.
    case notFound
    /// "The app has been transferred to a different team, and you need to migrate the user's
    /// identifier": the identifier belongs to the app's old developer team.
    case transferred

    /// Whether the app must sign the user out: `revoked`, and `notFound` for a user it had
    /// signed in (Apple's sample app shows the sign-in screen again for both).
    public var endsSession: Bool { self == .revoked || self == .notFound }
}

/// `ASAuthorization.Scope`.
public enum AppleAuthorizationScope: String, Sendable, Hashable, CaseIterable {
    case fullName = "name"
    case email
}

/// `ASAuthorizationAppleIDCredential`: name and email only on the first authorization of an app.
public struct AppleAuthorization: Sendable, Hashable {
    public var user: String
    public var identityToken: String
    public var authorizationCode: String
    public var givenName: String?
    public var familyName: String?
    public var email: String?

    public init(
        user: String, identityToken: String, authorizationCode: String, givenName: String? = nil,
        familyName: String? = nil, email: String? = nil
    ) {
        self.user = user
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.givenName = givenName
        self.familyName = familyName
        self.email = email
    }

    /// Whether Apple gave a name (first authorization with the `fullName` scope).
    public var hasName: Bool { givenName != nil || familyName != nil }
}

/// `ASAuthorizationError`: the user canceled, or the authorization failed.
public struct AppleAuthorizationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case canceled
        case failed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
