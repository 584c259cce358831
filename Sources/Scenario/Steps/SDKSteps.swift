import JSON
public import SignInSDK
public import WorldVocabulary
import YAML

/// The calls into the app's SDK a scenario can make (`SignInClient`'s public methods).
public enum SDKStep: String, Hashable, Sendable, CaseIterable {
    case configure, signIn, handleRedirect, getSession, getAccessToken, renewSession, signOut
    case signInWithApple, getCredentialState, userInfo
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

/// How an SDK call may end, as a step's `error:` names it: `none` for success, one of the
/// SDK's error codes (`SignInError.Code`), or what the harness found wrong in a call the SDK saw
/// succeed (`CallFinding`).
public enum CallOutcome: Hashable, Sendable {
    case success
    case failure(SignInError.Code)
    /// The SDK succeeded, and what the run saw around it says that it should not have.
    case finding(CallFinding)

    /// The name of success.
    public static let successName = "none"

    /// Every name a scenario may write.
    public static var names: [String] { sdkNames + CallFinding.allCases.map(\.rawValue) }

    /// The names of the SDK's own outcomes: success and its error codes (what `expect: {error: …}`
    /// checks).
    public static var sdkNames: [String] { [successName] + SignInError.Code.allCases.map(\.rawValue) }

    public init?(name: String) {
        if name == Self.successName {
            self = .success
        } else if let code = SignInError.Code(rawValue: name) {
            self = .failure(code)
        } else if let finding = CallFinding(rawValue: name) {
            self = .finding(finding)
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
        case .finding(let finding): finding.rawValue
        }
    }

    /// The name of success in a run's reports (a HAR page's `_outcome.call`), where a scenario
    /// writes `none`.
    public static let reportedSuccessName = "ok"

    /// The outcome as a run's reports name it: `ok` for success, else `name`.
    public var reportedName: String {
        self == .success ? Self.reportedSuccessName : name
    }
}

/// The scopes of native Sign in with Apple (`ASAuthorization.Scope`), as a scenario names them.
public enum AppleScopeName: String, Hashable, Sendable, CaseIterable {
    case name
    case email
}

/// What the harness finds wrong in an SDK call that succeeded, from what it saw around the app
/// (the sheet's pages): the SDK cannot know, since it never learns what the person did.
public enum CallFinding: String, Hashable, Sendable, CaseIterable {
    /// The person refused consent in the sheet, and the sign-in still ended in a session
    /// (RFC 6749 §4.1.2.1: a refusal is an `access_denied` error response, never a code).
    case consentRefusalIgnored = "consent_refusal_ignored"
}

/// What the person does in the web sheet.
public struct WebUserSetup: Hashable, Sendable {
    public var username: String
    public var password: String
    /// Other fields to fill, in order: by name, or by CSS selector or `label:` (what
    /// ``WebElementTarget/isTarget(_:)`` tells apart), for pages the person cannot read alone.
    public var fields: [FieldValue]
    /// Buttons to press, by CSS selector or `label:`, where the person's own choice would be wrong.
    public var clicks: [String] = []
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

extension SDKStep {
    /// Every SDK call takes `app` and `error`, the outcomes allowed.
    var signature: StepSignature {
        let common = [StepCatalog.app, Argument("error", .defined("callOutcomes"))]
        switch self {
        case .configure, .getSession, .renewSession, .userInfo:
            return StepSignature(form: .optional(.mapping(common)), summary: nil)
        case .signIn:
            let loginAttempt = ValueShape.mapping([Argument("username", .text), Argument("password", .text)])
            return StepSignature(
                form: .optional(
                    .mapping(
                        common + [
                            Argument("username", .text), Argument("password", .text),
                            Argument(
                                "fill",
                                .described(
                                    "Inputs to type into: by name, CSS selector or label:TEXT, to a value.",
                                    .dictionary(of: .text))),
                            Argument(
                                "click",
                                .described(
                                    "Buttons to press, by CSS selector or label:TEXT, where the person's choice is wrong.",
                                    StepCatalog.words)),
                            Argument("consent", .defined("consent")),
                            Argument("cancel", .defined("interruptionPoint")),
                            Argument("abandon", .defined("interruptionPoint")),
                            Argument("prompt", .defined("prompt")), Argument("scopes", StepCatalog.words),
                            Argument("login_hint", .text), Argument("max_age", .integer(minimum: 0)),
                            Argument(
                                "retry",
                                .described(
                                    "What is typed when the login form comes back after a refused attempt, one entry per attempt.",
                                    .list(loginAttempt, minimumCount: 1))),
                        ])),
                summary: "Signs in through the web authentication session.")
        case .handleRedirect:
            return StepSignature(
                form: .required(
                    .either([.text, .mapping(common + [Argument("url", .text, required: true)])])),
                summary: "Hands the app a callback URL, as the system would on opening it.")
        case .getAccessToken:
            return StepSignature(
                form: .optional(.mapping(common + [Argument("force", .flag)])),
                summary: "Asks for an access token, refreshing when it has expired (or when forced).")
        case .signOut:
            return StepSignature(
                form: .optional(.mapping(common + [Argument("end_session", .flag)])),
                summary: "Signs out: locally, and at the issuer unless end_session is false.")
        case .signInWithApple:
            return StepSignature(
                form: .optional(
                    .mapping(
                        common + [
                            Argument("cancel", .flag), Argument("scopes", .list(.defined("appleScope"))),
                            Argument("nonce", .text),
                        ])),
                summary: "Native Sign in with Apple, then the token exchange at the issuer.")
        case .getCredentialState:
            return StepSignature(
                form: .optional(
                    .mapping(
                        common + [
                            Argument(
                                "state",
                                .described(
                                    "The credential state the call must return.",
                                    .defined("appleCredentialState")))
                        ])),
                summary: "Asks Apple for the credential state of the session's Apple user.")
        }
    }
}

extension SDKCall {
    /// The step that makes this call.
    public var step: SDKStep {
        switch self {
        case .configure: .configure
        case .signIn: .signIn
        case .handleRedirect: .handleRedirect
        case .getSession: .getSession
        case .getAccessToken: .getAccessToken
        case .renewSession: .renewSession
        case .signOut: .signOut
        case .signInWithApple: .signInWithApple
        case .getCredentialState: .getCredentialState
        case .userInfo: .userInfo
        }
    }
}

// MARK: Decoding

extension StepDecoder {
    func sdk(_ step: SDKStep, _ arguments: YAMLNode?) throws(ScenarioError) -> StepAction {
        let name = step.rawValue
        var mapping: YAMLMapping?
        if step == .handleRedirect, let arguments, case .scalar = arguments {
            mapping = YAMLMapping(
                [YAMLPair(key: .scalar(YAMLScalar("url", mark: arguments.mark)), value: arguments)],
                mark: arguments.mark)
        } else {
            mapping = try optionalMapping(arguments, name, allowed: StepKind.sdk(step).keys())
        }
        let app = try app(mapping, name)
        var expectedOutcomes: [CallOutcome]?
        if let node = mapping?["error"] { expectedOutcomes = try outcomes(node, "\(name).error") }
        let call: SDKCall
        switch step {
        case .signIn: call = try signIn(mapping)
        case .handleRedirect:
            guard
                let url = try mapping.flatMap({ (m: YAMLMapping) throws(ScenarioError) in
                    try reader.optionalString(m, "url", name)
                })
            else {
                throw reader.error(
                    arguments ?? .scalar(YAMLScalar("", mark: YAMLMark(line: 1, column: 1))),
                    "handleRedirect needs a url")
            }
            call = .handleRedirect(url: url)
        case .getSession: call = .getSession
        case .getAccessToken:
            call = .getAccessToken(
                forceRefresh: try mapping?["force"].map { (n: YAMLNode) throws(ScenarioError) in
                    try reader.bool(n, "force")
                } ?? false)
        case .renewSession: call = .renewSession
        case .signOut:
            call = .signOut(
                callEndSession: try mapping?["end_session"].map { (n: YAMLNode) throws(ScenarioError) in
                    try reader.bool(n, "end_session")
                } ?? true)
        case .signInWithApple:
            var scopes: [String]?
            if let node = mapping?["scopes"] {
                scopes = try reader.names(node, "signInWithApple.scopes", AppleScopeName.self).map(\.rawValue)
            }
            call = .signInWithApple(
                cancel: try mapping?["cancel"].map { (n: YAMLNode) throws(ScenarioError) in
                    try reader.bool(n, "cancel")
                } ?? false,
                scopes: scopes,
                nonce: try mapping.flatMap { (m: YAMLMapping) throws(ScenarioError) in
                    try reader.optionalString(m, "nonce", name)
                })
        case .getCredentialState:
            call = .getCredentialState(
                expected: try mapping?["state"].map { (n: YAMLNode) throws(ScenarioError) in
                    try appleCredentialState(n, "getCredentialState.state")
                })
        case .userInfo: call = .userInfo
        case .configure: call = .configure
        }
        return .sdk(call, app: app, expectedOutcomes: expectedOutcomes)
    }

    func signIn(_ mapping: YAMLMapping?) throws(ScenarioError) -> SDKCall {
        var user = WebUserSetup()
        var prompt: String?
        var scopes: [String]?
        var loginHint: String?
        var maxAge: Int?
        if let mapping {
            if let value = try reader.optionalString(mapping, "username", "signIn") { user.username = value }
            if let value = try reader.optionalString(mapping, "password", "signIn") { user.password = value }
            if let node = mapping["fill"] {
                guard case .mapping(let fields) = node else {
                    throw reader.error(node, "signIn.fill must be a mapping of field names to values")
                }
                for pair in fields.pairs {
                    user.fields.append(
                        FieldValue(
                            try reader.string(pair.key, "a field name"),
                            try reader.string(pair.value, "a field value")))
                }
            }
            if let node = mapping["click"] { user.clicks = try reader.strings(node, "signIn.click") }
            if let node = mapping["consent"] {
                user.consent = try reader.named(node, "signIn.consent", WebUserScript.ConsentDecision.self)
            }
            for kind in ["cancel", "abandon"] {
                guard let node = mapping[kind] else { continue }
                guard user.interruption == nil else {
                    throw reader.error(node, "signIn takes cancel or abandon, not both")
                }
                let point = try reader.named(node, "signIn.\(kind)", WebUserScript.Point.self)
                user.interruption = kind == "cancel" ? .cancel(at: point) : .abandon(at: point)
            }
            if let node = mapping["retry"] { user.retries = try loginAttempts(node) }
            if let node = mapping["prompt"], !node.isNull {
                prompt = try reader.prompt(node, "signIn.prompt")
            }
            if let node = mapping["scopes"] { scopes = try reader.strings(node, "signIn.scopes") }
            loginHint = try reader.optionalString(mapping, "login_hint", "signIn")
            if let node = mapping["max_age"] {
                maxAge = try reader.int(node, "signIn.max_age", range: 0...Int(Int32.max))
            }
        }
        return .signIn(user, prompt: prompt, scopes: scopes, loginHint: loginHint, maxAge: maxAge)
    }

    /// `retry: [{password: …}, …]`: the attempts after a refused one.
    func loginAttempts(_ node: YAMLNode) throws(ScenarioError) -> [LoginAttempt] {
        guard case .sequence(let sequence) = node, !sequence.items.isEmpty else {
            throw reader.error(node, "signIn.retry must be a non-empty list of {username, password}")
        }
        var attempts: [LoginAttempt] = []
        for item in sequence.items {
            let attempt = try reader.mapping(
                item, "signIn.retry", allowed: StepKind.sdk(.signIn).keys("retry"))
            attempts.append(
                LoginAttempt(
                    username: try reader.optionalString(attempt, "username", "signIn.retry"),
                    password: try reader.optionalString(attempt, "password", "signIn.retry")))
        }
        return attempts
    }
}

// MARK: Encoding

extension ScenarioEncoder {
    /// An SDK call step: the call's arguments, its app and the outcomes allowed.
    static func sdk(_ call: SDKCall, app: String?, expectedOutcomes: [CallOutcome]?) -> JSONValue {
        var arguments = sdkArguments(call)
        if let app { arguments["app"] = .string(app) }
        if let expectedOutcomes {
            arguments["error"] =
                expectedOutcomes.count == 1
                ? .string(expectedOutcomes[0].name) : .array(expectedOutcomes.map { .string($0.name) })
        }
        return named(call.step.rawValue, arguments)
    }

    static func sdkArguments(_ call: SDKCall) -> [String: JSONValue] {
        var arguments: [String: JSONValue] = [:]
        switch call {
        case .signIn(let user, let prompt, let scopes, let loginHint, let maxAge):
            let defaults = WebUserSetup()
            if user.username != defaults.username { arguments["username"] = .string(user.username) }
            if user.password != defaults.password { arguments["password"] = .string(user.password) }
            if !user.fields.isEmpty {
                var fill: [String: JSONValue] = [:]
                for field in user.fields { fill[field.name] = .string(field.value) }
                arguments["fill"] = .object(fill)
            }
            if !user.clicks.isEmpty { arguments["click"] = .array(user.clicks.map(JSONValue.string)) }
            if user.consent != defaults.consent { arguments["consent"] = .string(user.consent.rawValue) }
            if !user.retries.isEmpty {
                arguments["retry"] = .array(
                    user.retries.map { attempt in
                        var members: [String: JSONValue] = [:]
                        if let username = attempt.username { members["username"] = .string(username) }
                        if let password = attempt.password { members["password"] = .string(password) }
                        return .object(members)
                    })
            }
            if let interruption = user.interruption {
                let kind = if case .cancel = interruption { "cancel" } else { "abandon" }
                arguments[kind] = .string(interruption.point.rawValue)
            }
            if let prompt { arguments["prompt"] = .string(prompt) }
            if let scopes { arguments["scopes"] = .array(scopes.map(JSONValue.string)) }
            if let loginHint { arguments["login_hint"] = .string(loginHint) }
            if let maxAge { arguments["max_age"] = .int(Int64(maxAge)) }
        case .handleRedirect(let url):
            arguments["url"] = .string(url)
        case .getAccessToken(let force):
            if force { arguments["force"] = true }
        case .signOut(let callEndSession):
            if !callEndSession { arguments["end_session"] = false }
        case .signInWithApple(let cancel, let scopes, let nonce):
            if cancel { arguments["cancel"] = true }
            if let scopes { arguments["scopes"] = .array(scopes.map(JSONValue.string)) }
            if let nonce { arguments["nonce"] = .string(nonce) }
        case .getCredentialState(let expected):
            if let expected { arguments["state"] = .string(expected.rawValue) }
        case .getSession, .renewSession, .userInfo, .configure:
            break
        }
        return arguments
    }
}
