public import Device
public import JSON
public import SignInSDK
public import WorldVocabulary

/// One check in an `expect` step, with where it is written.
public struct Expectation: Hashable, Sendable {
    public var kind: Kind
    public var location: SourceLocation

    public init(_ kind: Kind, location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    public enum Kind: Hashable, Sendable {
        /// A session is stored for the app (read through the SDK, without refreshing).
        case session(present: Bool, app: String?)
        /// Claims of the stored session's ID token: each value equal, or `present`/`absent`.
        case claims([String: ClaimMatch], app: String?)
        /// The stored session holds a refresh token (or not).
        case refreshToken(present: Bool, app: String?)
        /// The stored session's token type (`Bearer`, `DPoP`), compared case-insensitively.
        case tokenType(String, app: String?)
        /// The stored session's granted scope contains these scopes.
        case scopes([String], app: String?)
        /// The previous SDK call's error code (nil: it succeeded).
        case lastError(SignInError.Code?)
        /// Requests the device sent: count and parameters.
        case requests(RequestExpectation)
        /// Keychain items on the device.
        case keychainItems(Int)
        /// Cookies in the device browser's jar for the issuer.
        case browserCookies(count: Int?, named: String?)
        /// A user at the embedded issuer, found by email: field values.
        case issuerUser(email: String, fields: [String: ClaimMatch])
        /// The app's lifecycle phase (`notRunning`, `foregroundActive`, …).
        case appPhase(AppPhase, app: String?)
        /// The embedded issuer's verdict on every refresh token the device received.
        case issuerRefreshTokens(RefreshTokenVerdict)
        /// Apple's credential state for the phone's Apple ID and the app.
        case appleCredential(AppleIDCredentialState, app: String?)
        /// Whether the app's last sign-out is proved to have ended the issuer's session, by a
        /// check made when the expectation runs (the runner's `SignOutCheck`); the post-logout
        /// redirect with the `state` (RP-Initiated Logout 1.0 §3) is only an acknowledgement.
        case signedOutAtIssuer(Bool, app: String?)
        /// How many login forms the person has submitted in the app's web sheets: whether the
        /// issuer asked for the password again, without knowing the path its form posts to.
        case loginForms(Int, app: String?)
        /// How the app's last web sheet ended: at the callback, or with this error.
        case sheet(SheetEnding, app: String?)

        public var needsEmbeddedIssuer: Bool {
            switch self {
            case .issuerUser, .issuerRefreshTokens, .appleCredential: true
            default: false
            }
        }
    }
}

/// How a claim or field is matched.
public enum ClaimMatch: Hashable, Sendable, CustomStringConvertible {
    case equals(JSONValue)
    case present
    case absent

    public var description: String {
        switch self {
        case .equals(let value): String(decoding: value.serialized(), as: UTF8.self)
        case .present: "present"
        case .absent: "absent"
        }
    }
}

/// Which requests, and how many.
public struct RequestExpectation: Hashable, Sendable {
    /// The request path (`/oauth/token`), or nil for any.
    public var path: String?
    /// An endpoint by its role, found in the issuer's discovery document: `discovery`, `jwks`,
    /// `authorization`, `token`, `userinfo`, `end_session`, `revocation`. Lets one scenario
    /// check requests against issuers whose paths differ.
    public var endpoint: EndpointRole?
    public var method: String?
    /// Form or query parameters each matching request must have (or lack).
    public var parameters: [String: ClaimMatch]
    /// Headers (names case-insensitive) each matching request must have (or lack).
    public var headers: [String: ClaimMatch] = [:]
    /// Exactly this many matching requests (nil: at least one).
    public var count: Int?
    /// At least this many.
    public var atLeast: Int?

    public init(
        path: String? = nil, method: String? = nil, parameters: [String: ClaimMatch] = [:], count: Int? = nil,
        atLeast: Int? = nil
    ) {
        self.path = path
        self.method = method
        self.parameters = parameters
        self.count = count
        self.atLeast = atLeast
    }
}

/// What `expect: {issuer_refresh_tokens: …}` asks of the refresh tokens the device received.
public enum RefreshTokenVerdict: String, Hashable, Sendable, CaseIterable {
    /// Each one's family is revoked (reuse detection, sign-out, revocation).
    case revoked
    /// The newest one is still usable.
    case active
}

/// How a web sheet ended, as `expect: {sheet: …}` names it.
public enum SheetEnding: Hashable, Sendable {
    /// It reached the app's callback (`callback`).
    case callback
    /// It ended with this error (`javascript_required`, `login_rejected`, …).
    case failure(WebAuthenticationError.Code)

    /// Every name a scenario may write.
    public static var names: [String] { ["callback"] + WebAuthenticationError.Code.allCases.map(\.rawValue) }

    public init?(name: String) {
        if name == "callback" {
            self = .callback
        } else if let code = WebAuthenticationError.Code(rawValue: name) {
            self = .failure(code)
        } else {
            return nil
        }
    }

    public var name: String {
        switch self {
        case .callback: "callback"
        case .failure(let code): code.rawValue
        }
    }
}
