public import JSON
public import OAuthCore

/// What the issuer's `storeUser(_:)` sets on a user: the email that finds it (or the `user_id`),
/// and the fields to change; nil leaves a field as it is.
public struct UserUpdate: Sendable, Hashable {
    public var email: String
    public var userID: String?
    public var password: String?
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var emailVerified: Bool?

    public init(email: String) {
        self.email = email
    }

    /// The members `init(json:)` reads.
    public static let jsonKeys = [
        "email", "user_id", "password", "name", "given_name", "family_name", "email_verified",
    ]

    /// The update as JSON, the members `init(json:)` reads back.
    public var json: [String: JSONValue] {
        var members: [String: JSONValue] = ["email": .string(email)]
        if let userID { members["user_id"] = .string(userID) }
        if let password { members["password"] = .string(password) }
        if let name { members["name"] = .string(name) }
        if let givenName { members["given_name"] = .string(givenName) }
        if let familyName { members["family_name"] = .string(familyName) }
        if let emailVerified { members["email_verified"] = .bool(emailVerified) }
        return members
    }

    /// From the JSON `POST /_admin/users` and a scenario's `issuer: {user: …}` take: `email`
    /// (required, with an `@`), `user_id`, `password`, `name`, `given_name`, `family_name`,
    /// `email_verified`.
    public init(json: [String: JSONValue]) throws(OAuthError) {
        guard let email = json["email"]?.stringValue, email.contains("@") else {
            throw OAuthError.invalidRequest("email is required")
        }
        self.email = email
        userID = json["user_id"]?.stringValue
        password = json["password"]?.stringValue
        name = json["name"]?.stringValue
        givenName = json["given_name"]?.stringValue
        familyName = json["family_name"]?.stringValue
        emailVerified = json["email_verified"]?.boolValue
    }
}
