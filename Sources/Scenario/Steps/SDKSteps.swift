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
    case signIn(SignInArguments)
    case handleRedirect(url: String)
    case getSession
    case getAccessToken(forceRefresh: Bool)
    case renewSession
    case signOut(callEndSession: Bool)
    /// Native Sign in with Apple, then the token exchange at the issuer.
    case signInWithApple(AppleSignInArguments)
    /// `getCredentialState()`: Apple's state for the session's Apple user, which must be
    /// `expected` when given.
    case getCredentialState(expected: AppleIDCredentialState?)
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

/// What a `signIn` step asks for: the person in the sheet, and the authorization request's
/// parameters (nil: the app's own).
public struct SignInArguments: Hashable, Sendable {
    public var user: WebUserSetup
    public var prompt: String?
    public var scopes: [String]?
    public var loginHint: String?
    public var maxAge: Int?

    public init(
        _ user: WebUserSetup = WebUserSetup(), prompt: String? = nil, scopes: [String]? = nil,
        loginHint: String? = nil, maxAge: Int? = nil
    ) {
        self.user = user
        self.prompt = prompt
        self.scopes = scopes
        self.loginHint = loginHint
        self.maxAge = maxAge
    }
}

/// What a `signInWithApple` step asks for.
public struct AppleSignInArguments: Hashable, Sendable {
    /// The person cancels Apple's sheet.
    public var cancel: Bool
    /// The scopes asked of Apple (nil: the app's own).
    public var scopes: [AppleAuthorizationScope]?
    public var nonce: String?

    public init(cancel: Bool = false, scopes: [AppleAuthorizationScope]? = nil, nonce: String? = nil) {
        self.cancel = cancel
        self.scopes = scopes
        self.nonce = nonce
    }
}

/// An SDK step's arguments: its call's, and the app and outcomes every call takes.
struct SDKInvocation<Call> {
    var call: Call
    var app: String?
    /// The outcomes allowed (nil: the call must succeed).
    var expectedOutcomes: [CallOutcome]?

    /// `app`, and `error`: the outcomes allowed, one written as a word, several as a list.
    static var commonFields: StepFields<SDKInvocation> {
        [
            .app(\.app),
            StepField(
                Argument("error", .defined("callOutcomes")),
                decode: { (invocation, node, reading) throws(ScenarioError) in
                    invocation.expectedOutcomes = try reading.decoder.outcomes(node, reading.context("error"))
                },
                encode: { invocation in
                    invocation.expectedOutcomes.map { outcomes in
                        outcomes.count == 1
                            ? .string(outcomes[0].name) : .array(outcomes.map { .string($0.name) })
                    }
                }),
        ]
    }
}

extension SDKStep {
    /// The step's declaration: its call's fields after `app` and `error`, from which its
    /// signature, its decoding and its encoding come.
    var codec: StepCodec {
        switch self {
        case .configure: plainCall(.configure)
        case .getSession: plainCall(.getSession)
        case .renewSession: plainCall(.renewSession)
        case .userInfo: plainCall(.userInfo)
        case .signIn:
            call(
                summary: "Signs in through the web authentication session.", SignInArguments.fields,
                from: SignInArguments(), SDKCall.signIn
            ) { if case .signIn(let arguments) = $0 { arguments } else { nil } }
        case .handleRedirect:
            call(
                summary: "Hands the app a callback URL, as the system would on opening it.", needs: "a url",
                [StepField<String?>.text("url", \.self).required("a url")], from: nil,
                rules: { (url, node, reading) throws(ScenarioError) in
                    // `url: null` is no url either.
                    if url == nil { throw reading.reader.error(node, "\(reading.path) needs a url") }
                }, { .handleRedirect(url: $0 ?? "") }
            ) { if case .handleRedirect(let url) = $0 { url } else { nil } }
            .acceptingScalar(for: "url")
        case .getAccessToken:
            call(
                summary: "Asks for an access token, refreshing when it has expired (or when forced).",
                [.flag("force", \.self, default: false)], from: false, SDKCall.getAccessToken
            ) { if case .getAccessToken(let force) = $0 { force } else { nil } }
        case .signOut:
            call(
                summary: "Signs out: locally, and at the issuer unless end_session is false.",
                [.flag("end_session", \.self, default: true)], from: true, SDKCall.signOut
            ) { if case .signOut(let callEndSession) = $0 { callEndSession } else { nil } }
        case .signInWithApple:
            call(
                summary: "Native Sign in with Apple, then the token exchange at the issuer.",
                AppleSignInArguments.fields, from: AppleSignInArguments(), SDKCall.signInWithApple
            ) { if case .signInWithApple(let arguments) = $0 { arguments } else { nil } }
        case .getCredentialState:
            call(
                summary: "Asks Apple for the credential state of the session's Apple user.",
                [
                    StepField<AppleIDCredentialState?>.named(
                        "state", \.self, .defined("appleCredentialState")
                    )
                    .described("The credential state the call must return.")
                ], from: nil, SDKCall.getCredentialState
            ) { if case .getCredentialState(let expected) = $0 { expected } else { nil } }
        }
    }

    /// A call that takes no arguments of its own.
    private func plainCall(_ plain: SDKCall) -> StepCodec {
        call(summary: nil, StepFields<Void>([]), from: ()) { _ in
            plain
        } payload: {
            $0 == plain ? () : nil
        }
    }

    /// A call whose arguments are `fields`, read into a `Call` from `initial` and made into the
    /// call by `make`; `payload` is the way back.
    private func call<Call>(
        summary: String?, needs: String? = nil, _ fields: StepFields<Call>, from initial: Call,
        rules: ((Call, YAMLNode, FieldReading) throws(ScenarioError) -> Void)? = nil,
        _ make: @escaping (Call) -> SDKCall, payload: @escaping (SDKCall) -> Call?
    ) -> StepCodec {
        var invocationRules: ((SDKInvocation<Call>, YAMLNode, FieldReading) throws(ScenarioError) -> Void)?
        if let rules {
            invocationRules = { (invocation, node, reading) throws(ScenarioError) in
                try rules(invocation.call, node, reading)
            }
        }
        return .fields(
            rawValue, summary: summary, needs: needs,
            SDKInvocation<Call>.commonFields + fields.within(\.call), from: SDKInvocation(call: initial),
            rules: invocationRules,
            action: { .sdk(make($0.call), app: $0.app, expectedOutcomes: $0.expectedOutcomes) },
            root: { action in
                guard case .sdk(let call, let app, let outcomes) = action, let arguments = payload(call)
                else {
                    return nil
                }
                return SDKInvocation(call: arguments, app: app, expectedOutcomes: outcomes)
            })
    }
}

extension SignInArguments {
    /// `signIn`'s own keys.
    static var fields: StepFields<SignInArguments> {
        let defaults = WebUserSetup()
        return [
            .text("username", \.user.username, default: defaults.username),
            .text("password", \.user.password, default: defaults.password),
            .fill(\.user.fields)
                .described("Inputs to type into: by name, CSS selector or label:TEXT, to a value."),
            .words("click", \.user.clicks)
                .described(
                    "Buttons to press, by CSS selector or label:TEXT, where the person's choice is wrong."),
            .named("consent", \.user.consent, default: defaults.consent, .defined("consent")),
            .interruption("cancel", \.user.interruption, WebUserScript.Interruption.cancel),
            .interruption("abandon", \.user.interruption, WebUserScript.Interruption.abandon),
            .prompt("prompt", \.prompt),
            .words("scopes", \.scopes),
            .text("login_hint", \.loginHint),
            // The schema states no maximum: Int32's is the SDK's bound, not the protocol's.
            .integer("max_age", \.maxAge, range: 0...Int(Int32.max), statesMaximum: false),
            .mappings("retry", \.user.retries, LoginAttempt.fields, from: LoginAttempt())
                .described(
                    "What is typed when the login form comes back after a refused attempt, one entry per attempt."
                ),
        ]
    }
}

extension LoginAttempt {
    /// The keys of one `retry` entry.
    static var fields: StepFields<LoginAttempt> {
        [.text("username", \.username), .text("password", \.password)]
    }
}

extension AppleSignInArguments {
    /// `signInWithApple`'s own keys.
    static var fields: StepFields<AppleSignInArguments> {
        [
            .flag("cancel", \.cancel, default: false),
            StepField(
                Argument("scopes", .list(.defined("appleScope"))),
                decode: { (arguments, node, reading) throws(ScenarioError) in
                    arguments.scopes = try reading.reader.names(
                        node, reading.context("scopes"), AppleAuthorizationScope.self)
                },
                encode: { arguments in arguments.scopes.map { .array($0.map { .string($0.rawValue) }) } }),
            .text("nonce", \.nonce),
        ]
    }
}

extension StepField {
    /// `fill: {name: value, …}`: form fields and what is typed into them, in order.
    fileprivate static func fill(_ path: WritableKeyPath<Root, [FieldValue]>) -> StepField {
        StepField(
            Argument("fill", .dictionary(of: .text)),
            decode: { (root, node, reading) throws(ScenarioError) in
                guard case .mapping(let fields) = node else {
                    throw reading.reader.error(
                        node, "\(reading.context("fill")) must be a mapping of field names to values")
                }
                for pair in fields.pairs {
                    root[keyPath: path].append(
                        FieldValue(
                            try reading.reader.string(pair.key, "a field name"),
                            try reading.reader.string(pair.value, "a field value")))
                }
            },
            encode: { root in
                let fields = root[keyPath: path]
                guard !fields.isEmpty else { return nil }
                var fill: [String: JSONValue] = [:]
                for field in fields { fill[field.name] = .string(field.value) }
                return .object(fill)
            })
    }

    /// `cancel: POINT` or `abandon: POINT`: one interruption of the sheet, by `make`; the two
    /// keys share the value, so the second of them given is refused.
    fileprivate static func interruption(
        _ key: String, _ path: WritableKeyPath<Root, WebUserScript.Interruption?>,
        _ make: @escaping (WebUserScript.Point) -> WebUserScript.Interruption
    ) -> StepField {
        StepField(
            Argument(key, .defined("interruptionPoint")),
            decode: { (root, node, reading) throws(ScenarioError) in
                guard root[keyPath: path] == nil else {
                    throw reading.reader.error(node, "\(reading.path) takes cancel or abandon, not both")
                }
                root[keyPath: path] = make(
                    try reading.reader.named(node, reading.context(key), WebUserScript.Point.self))
            },
            encode: { root in
                guard let interruption = root[keyPath: path], make(interruption.point) == interruption else {
                    return nil
                }
                return .string(interruption.point.rawValue)
            })
    }

    /// `prompt:`, checked as `ScenarioReader.prompt` checks it and kept as written; `null`
    /// leaves the SDK's own rule.
    fileprivate static func prompt(_ key: String, _ path: WritableKeyPath<Root, String?>) -> StepField {
        StepField(
            Argument(key, .defined("prompt")),
            decode: { (root, node, reading) throws(ScenarioError) in
                guard !node.isNull else { return }
                root[keyPath: path] = try reading.reader.prompt(node, reading.context(key))
            },
            encode: { root in root[keyPath: path].map(JSONValue.string) })
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
