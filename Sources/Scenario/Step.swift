public import Issuer
public import JOSE
public import SignInSDK
public import WebAuthSession

/// One step of a scenario, with where it is written.
public struct Step: Hashable, Sendable {
    public var action: StepAction
    /// The step's name as written (`signIn`, `advance`, `expect`, …), for reports.
    public var name: String
    public var location: SourceLocation

    public init(_ action: StepAction, name: String, location: SourceLocation) {
        self.action = action
        self.name = name
        self.location = location
    }
}

extension Step {
    /// Whether the step is a `runFlow` include (or a parallel branch's sequence).
    public var isInclude: Bool {
        if case .include = action { return true }
        return false
    }
}

/// What a step does.
public enum StepAction: Hashable, Sendable {
    /// An app lifecycle action on one app (`app` nil: the scenario's first app).
    case app(AppAction, app: String?)
    /// A device action.
    case device(DeviceAction)
    /// Moves the world's time forward (tokens and codes age, sleeping work runs).
    case advance(seconds: Int64)
    /// Sets how far the device's clock is ahead of the world (negative: behind).
    case skew(seconds: Int64)
    /// On the phone: the user stops using Apple ID with the app (Settings › Apple ID › Sign in
    /// with Apple), so the app's credential state becomes `notFound` (the simulated Apple's
    /// default answer after a stop), and a running app is sent the revocation notification.
    case appleRevokeConsent(app: String?)
    /// At Apple: the credential state of the phone's Apple ID for the app changes from Apple's
    /// side (what each change means: `AppleCredentialChange`).
    case appleCredential(AppleCredentialChange, app: String?)
    /// A change to the device's network conditions.
    case network(NetworkChange)
    /// A call into the app's SDK and the outcomes allowed (nil: it must succeed). Several fit a
    /// race whose winner is not fixed.
    case sdk(SDKCall, app: String?, expectedOutcomes: [CallOutcome]?)
    /// Signs an Apple ID in on the phone (nil: signs it out).
    case appleAccount(AppleAccountSetup?)
    /// An admin action on the embedded issuer.
    case issuer(IssuerAction)
    /// Steps started together; the block ends when all have (races).
    case parallel([Step])
    /// A `runFlow` include, inlined: its file and its steps (with its own env applied).
    case include(file: String, steps: [Step])
    /// Checks on the state of the world.
    case expect([Expectation])
    /// Waits (in real time, bounded) until a condition holds: how a `parallel` branch lets
    /// the other get to a point (its sheet up, its request sent) before acting.
    case wait(WaitCondition)
}

/// How an SDK call may end, as a step's `error:` names it: `none` for success, or one of the
/// SDK's error codes (`SignInError.Code`).
public enum CallOutcome: Hashable, Sendable {
    case success
    case failure(SignInError.Code)

    /// The name of success.
    public static let successName = "none"

    /// Every name a scenario may write.
    public static var names: [String] { [successName] + SignInError.Code.allCases.map(\.rawValue) }

    public init?(name: String) {
        if name == Self.successName {
            self = .success
        } else if let code = SignInError.Code(rawValue: name) {
            self = .failure(code)
        } else {
            return nil
        }
    }

    /// The outcome of a call that succeeded (nil) or failed with `code`.
    public init(_ code: SignInError.Code?) {
        self = code.map { .failure($0) } ?? .success
    }

    public var name: String {
        switch self {
        case .success: Self.successName
        case .failure(let code): code.rawValue
        }
    }
}

/// `ASAuthorizationAppleIDProvider.CredentialState`, as scenarios write it (Apple's case names).
public enum AppleCredentialStateName: String, Hashable, Sendable, CaseIterable {
    case authorized
    case revoked
    case notFound
    case transferred
}

/// How an `appleCredential` step changes the credential state at Apple.
public enum AppleCredentialChange: Hashable, Sendable {
    /// The user authorizes the app with the phone's Apple ID somewhere else (another device, the
    /// web): Apple counts it as authorized, and a first authorization shares the name there.
    case authorized
    /// Apple revokes the authorization (as when the app's server revokes the user's tokens):
    /// a running app is sent the revocation notification.
    case revoked
    /// Apple no longer knows of the relationship (as when the user stops using Apple ID with the
    /// app on another device or on the web): a running app is sent the revocation notification.
    case notFound
    /// The app moves to another developer team (nil: a team of the runner's choosing): the user
    /// identifiers the app holds become `transferred`.
    case transferred(team: String?)

    /// The state the change leaves.
    public var state: AppleCredentialStateName {
        switch self {
        case .authorized: .authorized
        case .revoked: .revoked
        case .notFound: .notFound
        case .transferred: .transferred
        }
    }
}

/// What a `wait` step waits for.
public enum WaitCondition: Hashable, Sendable {
    /// The app's web sheet is up (or, with `presented: false`, closed).
    case sheet(presented: Bool, app: String?)
    /// The device has sent at least `count` requests to `path` (any path when nil).
    case requests(path: String?, count: Int)
}

/// App lifecycle actions (Device's `AppState` rules decide which are allowed when).
public enum AppAction: String, Hashable, Sendable, CaseIterable {
    case install
    /// Cold launch by the user: a new process and a new SDK, configured at start.
    case launch
    /// Launched by the system before the first unlock (prewarming, iOS 15+).
    case prewarm
    case foreground
    case resignActive
    case background
    /// The process is killed: in-memory state lost, requests in flight abandoned.
    case terminate
    case uninstall
    /// Deleted and installed again: preferences wiped, keychain kept.
    case reinstall
}

/// Device actions.
public enum DeviceAction: String, Hashable, Sendable, CaseIterable {
    /// Restart: every app terminated, the keychain locked until the first unlock.
    case reboot
    case lock
    case unlock
}

/// Changes to the device's network, applied in this order: reset, then the rest.
public struct NetworkChange: Hashable, Sendable {
    /// Back to a good network with nothing armed.
    public var reset: Bool = false
    public var offline: Bool?
    public var latencyMilliseconds: Int?
    /// Every page answers a captive portal's login page.
    public var captivePortal: Bool?
    /// The next requests (to `path` when given) fail as if offline.
    public var failNext: ArmedRequests?
    /// The next requests reach the server, which answers, but the answer is lost.
    public var loseResponses: ArmedRequests?
    /// The next requests reach the server twice (a retry after a dropped connection); the app
    /// gets the second answer.
    public var resendRequests: ArmedRequests?
    /// The next requests are answered with this status by the network (a proxy, a gateway).
    public var injectedStatus: Int?
    public var injectedRequests: ArmedRequests?

    public init() {}
}

/// How many of the next requests, and which.
public struct ArmedRequests: Hashable, Sendable {
    public var count: Int
    /// Only requests whose path is this (nil: any request).
    public var path: String?

    public init(count: Int = 1, path: String? = nil) {
        self.count = count
        self.path = path
    }
}

/// SDK calls (`docs/sdk.md`).
public enum SDKCall: Hashable, Sendable {
    /// The web flow with a scripted user in the sheet.
    case signIn(WebUserSetup, prompt: String?, scopes: [String]?, loginHint: String?, maxAge: Int?)
    case handleRedirect(url: String)
    case getSession
    case getAccessToken(forceRefresh: Bool)
    case renewSession
    case signOut(callEndSession: Bool)
    case signInWithApple(cancel: Bool, scopes: [String]?, nonce: String?)
    /// `getCredentialState()`: Apple's state for the session's Apple user, which must be
    /// `expected` when given.
    case getCredentialState(expected: AppleCredentialStateName?)
    case userInfo
    /// `configure(options:)` again, as the app's launch does.
    case configure
}

/// What the person does in the web sheet.
public struct WebUserSetup: Hashable, Sendable {
    public var username: String
    public var password: String
    /// Other fields to fill, in order.
    public var fields: [FieldValue]
    /// What the person answers on a consent page.
    public var consent: WebUserScript.ConsentDecision
    /// `cancel` (closes the sheet) or `abandon` (leaves it open) at a point of the flow.
    public var interruption: WebUserScript.Interruption?
    /// What the person types when the login form comes back after a refused attempt, one entry
    /// per further attempt (`retry`). Without one, a login form shown again ends the sheet.
    public var retries: [LoginAttempt]

    public init(
        username: String = "alice@example.com", password: String = "alice-password",
        fields: [FieldValue] = [],
        consent: WebUserScript.ConsentDecision = .approve, interruption: WebUserScript.Interruption? = nil,
        retries: [LoginAttempt] = []
    ) {
        self.username = username
        self.password = password
        self.fields = fields
        self.consent = consent
        self.interruption = interruption
        self.retries = retries
    }
}

/// One more try at a login form the issuer showed again: what changes from the first attempt
/// (nil keeps what was typed before).
public struct LoginAttempt: Hashable, Sendable {
    public var username: String?
    public var password: String?

    public init(username: String? = nil, password: String? = nil) {
        self.username = username
        self.password = password
    }
}

/// A form field and the value typed into it.
public struct FieldValue: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Admin actions on the embedded issuer (its `/_admin/` API).
public enum IssuerAction: Hashable, Sendable {
    /// Arms a fault (an RP conformance id or a transport fault) for the next `count` uses.
    case fault(FaultSetup)
    case clearFaults
    /// A new signing key (optionally of another algorithm); the old one stays in the JWKS.
    case rotateKeys(algorithm: JWSAlgorithm?)
    /// Creates or updates a user at the issuer.
    case user(UserUpdate)
    /// Moves the issuer's clock through its admin API (`POST /_admin/clock`). In a simulated
    /// world that clock is the world's, so devices age with it.
    case clock(IssuerClockMove)
}

/// An `issuer: {fault: …}` step: which fault, for how many requests, and its settings.
public struct FaultSetup: Hashable, Sendable {
    /// The fault (`rp-id_token-sig-none`, `http-500`, …).
    public var fault: IssuerFault
    public var count: Int
    /// Only requests to this path (transport faults).
    public var path: String?
    /// `http-delay`: how long the request is held.
    public var delayMilliseconds: Int?
    /// `http-html-error` and `oauth-error`: the status answered.
    public var status: Int?
    /// `oauth-error`: the `error` code and `error_description` answered (RFC 6749 §5.2).
    public var error: String?
    public var errorDescription: String?

    public init(
        _ fault: IssuerFault, count: Int = 1, path: String? = nil, delayMilliseconds: Int? = nil,
        status: Int? = nil,
        error: String? = nil, errorDescription: String? = nil
    ) {
        self.fault = fault
        self.count = count
        self.path = path
        self.delayMilliseconds = delayMilliseconds
        self.status = status
        self.error = error
        self.errorDescription = errorDescription
    }
}

/// How an `issuer: {clock: …}` step moves the issuer's clock.
public enum IssuerClockMove: Hashable, Sendable {
    /// Forward by this many seconds (`{"advance": s}`).
    case advance(seconds: Int64)
    /// To this many seconds from the clock's start (`{"offset": s}`).
    case offset(seconds: Int64)
}
