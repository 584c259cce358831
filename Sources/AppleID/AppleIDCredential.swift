public import JSON

/// The parts of a person's name an app may receive (`PersonNameComponents`, reduced).
public struct ApplePersonName: Sendable, Hashable {
    public var givenName: String?
    public var familyName: String?

    public init(givenName: String?, familyName: String?) {
        self.givenName = givenName
        self.familyName = familyName
    }
}

/// What a successful native authorization hands the app (`ASAuthorizationAppleIDCredential`).
///
/// `fullName` and `email` are there only on the first authorization of the app by the account
/// (field bug 10): an app that loses them cannot get them back until the user stops using Apple
/// ID with it. The identity token never carries the name.
public struct AppleIDCredential: Sendable, Hashable {
    /// The stable user identifier, equal to the identity token's `sub` (one per developer team).
    public var user: String
    /// A JWT signed RS256 by the provider, for the app's server (docs/issuer.md, "The simulated Apple").
    public var identityToken: String
    /// A single-use code, valid 5 minutes, redeemable at `/auth/token` by the app's team.
    public var authorizationCode: String
    /// The name the user shared; first authorization with the `fullName` scope only.
    public var fullName: ApplePersonName?
    /// The real or private relay address; first authorization with the `email` scope only.
    public var email: String?
    public var realUserStatus: AppleRealUserStatus
    /// The scopes the user granted this time: empty on returning authorizations, as on devices.
    public var authorizedScopes: [AppleScope]

    public init(
        user: String, identityToken: String, authorizationCode: String, fullName: ApplePersonName?,
        email: String?, realUserStatus: AppleRealUserStatus, authorizedScopes: [AppleScope]
    ) {
        self.user = user
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.fullName = fullName
        self.email = email
        self.realUserStatus = realUserStatus
        self.authorizedScopes = authorizedScopes
    }

    /// The credential as the admin API answers it: absent fields are left out.
    ///
    ///     {"user", "identity_token", "authorization_code", "full_name": {"given_name",
    ///      "family_name"}?, "email"?, "real_user_status", "authorized_scopes"}
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "user": .string(user), "identity_token": .string(identityToken),
            "authorization_code": .string(authorizationCode),
            "real_user_status": .int(Int64(realUserStatus.rawValue)),
            "authorized_scopes": .array(authorizedScopes.map { .string($0.rawValue) }),
        ]
        if let fullName {
            var name: [String: JSONValue] = [:]
            if let given = fullName.givenName { name["given_name"] = .string(given) }
            if let family = fullName.familyName { name["family_name"] = .string(family) }
            object["full_name"] = .object(name)
        }
        if let email { object["email"] = .string(email) }
        return .object(object)
    }
}
