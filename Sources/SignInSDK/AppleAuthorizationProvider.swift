/// Native Sign in with Apple on the device: `ASAuthorizationAppleIDProvider`'s contract.
public protocol AppleAuthorizationProvider: Sendable {
    /// Asks the user to authorize the app; `nonce` is the value for the identity token's `nonce`
    /// claim (apps send the SHA-256 of a raw nonce, hex-encoded).
    func authorize(scopes: [AppleAuthorizationScope], nonce: String?) async throws(AppleAuthorizationFailure)
        -> AppleAuthorization
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
