/// Apple's judgement of whether an account belongs to a real person (`real_user_status`).
public enum AppleRealUserStatus: Int, Sendable, Hashable, CaseIterable {
    /// The device cannot tell (not iOS 14 or later, or another platform).
    case unsupported = 0
    /// The system could not decide.
    case unknown = 1
    /// The user is very likely a real person.
    case likelyReal = 2
}

/// What an app may ask the user to share (`ASAuthorization.Scope`).
public enum AppleScope: String, Sendable, Hashable, CaseIterable {
    case fullName
    case email

    /// Reads `fullName` (also Apple's `full_name` and the web's `name`) or `email`.
    public init?(name: String) {
        switch name {
        case "fullName", "full_name", "name": self = .fullName
        case "email": self = .email
        default: return nil
        }
    }
}

/// The Apple ID signed in on the simulated device, and the choices its owner makes on the sheet.
public struct AppleIDAccount: Sendable, Hashable {
    /// The Apple ID's email address; accounts are told apart by it, case-insensitively.
    public var email: String
    public var givenName: String?
    public var familyName: String?
    /// "Hide My Email" on the sheet. Only a first authorization asks; later ones keep that answer.
    public var privateRelay: Bool
    public var realUserStatus: AppleRealUserStatus

    public init(
        email: String, givenName: String? = nil, familyName: String? = nil, privateRelay: Bool = false,
        realUserStatus: AppleRealUserStatus = .likelyReal
    ) {
        self.email = email
        self.givenName = givenName
        self.familyName = familyName
        self.privateRelay = privateRelay
        self.realUserStatus = realUserStatus
    }
}

/// One native Sign in with Apple request (`ASAuthorizationAppleIDRequest` performed by an
/// `ASAuthorizationController`), with the user's answer decided in advance.
public struct AppleAuthorizationRequest: Sendable, Hashable {
    /// What the user does with the sheet.
    public enum Decision: Sendable, Hashable {
        /// Continue (Face ID, password): the app gets a credential.
        case approve
        /// Close the sheet: `AppleAuthorizationError.canceled` (1001).
        case cancel
    }

    /// The Apple ID signed in on the device; `nil` when none is, which fails with
    /// `AppleAuthorizationError` code `unknown` (1000), as real devices do.
    public var account: AppleIDAccount?
    /// The app's bundle id: the `aud` of its identity tokens and the `client_id` of its codes.
    public var bundleID: String
    /// The app's developer team; `nil` takes the team the app is registered with, else
    /// `AppleConfiguration.defaultTeamID`.
    public var teamID: String?
    /// Asked-for scopes. Most apps ask for both; pass `[]` to ask for none.
    public var requestedScopes: [AppleScope]
    /// The value to put in the token's `nonce`. Apps send `SHA256(rawNonce)` as lowercase hex
    /// (`AppleNonce.sha256Hex(_:)`); the provider copies it as given.
    public var nonce: String?
    public var decision: Decision

    public init(
        account: AppleIDAccount?, bundleID: String, teamID: String? = nil,
        requestedScopes: [AppleScope] = [.fullName, .email], nonce: String? = nil,
        decision: Decision = .approve
    ) {
        self.account = account
        self.bundleID = bundleID
        self.teamID = teamID
        self.requestedScopes = requestedScopes
        self.nonce = nonce
        self.decision = decision
    }
}
