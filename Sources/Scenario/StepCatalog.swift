public import JSON

/// Every step a scenario may name: the one declaration that `StepDecoder` decodes from, that
/// `ScenarioSchema` makes the JSON Schema's `step` from, that `signinsim list --steps` prints,
/// and that the scenario reference is checked against (`StepCatalogTests`).
///
/// Adding a step means a case here, its `signature` (the compiler asks for it), its decoding
/// and execution (the compiler asks for those too: the switches are exhaustive), a test and a
/// scenario.
public enum StepKind: Hashable, Sendable, CaseIterable {
    /// An app lifecycle action (`launch`, `terminate`, …).
    case app(AppAction)
    /// A device action (`reboot`, `lock`, `unlock`).
    case device(DeviceAction)
    /// A call into the app's SDK.
    case sdk(SDKStep)
    /// A change to the world around the app: time, network, Apple, the issuer.
    case world(WorldStep)
    /// A step that orders or checks other steps.
    case flow(FlowStep)

    public static var allCases: [StepKind] {
        AppAction.allCases.map(StepKind.app) + DeviceAction.allCases.map(StepKind.device)
            + SDKStep.allCases.map(StepKind.sdk) + WorldStep.allCases.map(StepKind.world)
            + FlowStep.allCases.map(StepKind.flow)
    }

    /// The step's name in a scenario.
    public var name: String {
        switch self {
        case .app(let action): action.rawValue
        case .device(let action): action.rawValue
        case .sdk(let step): step.rawValue
        case .world(let step): step.rawValue
        case .flow(let step): step.rawValue
        }
    }

    /// The step a scenario names; nil for a name that is no step.
    public init?(name: String) {
        guard let kind = Self.byName[name] else { return nil }
        self = kind
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
}

/// The calls into the app's SDK a scenario can make (`SignInClient`'s public methods).
public enum SDKStep: String, Hashable, Sendable, CaseIterable {
    case configure, signIn, handleRedirect, getSession, getAccessToken, renewSession, signOut
    case signInWithApple, getCredentialState, userInfo
}

/// Changes to the world around the app.
public enum WorldStep: String, Hashable, Sendable, CaseIterable {
    case advance, skew, network, appleAccount, appleRevokeConsent, appleCredential, issuer
}

/// Steps that order or check other steps.
public enum FlowStep: String, Hashable, Sendable, CaseIterable {
    case parallel, runFlow, expect, wait
}

/// The checks an `expect` step takes.
public enum ExpectationKey: String, Hashable, Sendable, CaseIterable {
    case session, claims, refresh_token, token_type, scopes, error, requests, keychain, cookies
    case issuer_user, app_phase, issuer_refresh_tokens, apple_credential, signed_out_at_issuer
    case login_forms
}

/// An issuer endpoint named by its role, found in the issuer's discovery document
/// (OpenID Connect Discovery 1.0 §3), so a check holds against any issuer.
public enum EndpointRole: String, Hashable, Sendable, CaseIterable {
    case discovery, jwks, authorization, token, userinfo, end_session, revocation
}

/// What a value in a scenario may be: the JSON Schema states it, and the loader reads the keys
/// of mappings from it. The loader checks more (ranges it reports with the value, rules
/// between keys); the schema says what an editor can check.
public indirect enum ValueShape: Sendable {
    /// Any text.
    case text
    /// `true` or `false`.
    case flag
    /// A whole number, at least and at most these when given.
    case integer(minimum: Int? = nil, maximum: Int? = nil)
    /// One of these words.
    case oneOf([String])
    /// `present`, `absent`, `true` or `false`.
    case presence
    /// A definition of the schema's `$defs`, by name: a closed set or a shape used in places.
    case defined(String)
    /// A mapping with these keys only; with `onlyOne`, exactly one of them.
    case mapping([Argument], onlyOne: Bool = false)
    /// A mapping with these keys (the required ones present) and any others, of any value.
    case openMapping([Argument])
    /// A mapping of any keys to values of this shape (nil: any value, described).
    case dictionary(of: ValueShape?)
    /// A list of values of this shape.
    case list(ValueShape, minimumCount: Int? = nil)
    /// Any of these shapes.
    case either([ValueShape])
    /// Nothing: the key written with no value.
    case null
    /// The shape, with a sentence for editors.
    case described(String, ValueShape)

    /// The keys of the mapping this value is, or may be (the first mapping among `either`), or
    /// of each item of the list it is.
    public var keys: [String] {
        switch self {
        case .mapping(let arguments, _), .openMapping(let arguments): arguments.map(\.key)
        case .either(let shapes): shapes.lazy.map(\.keys).first { !$0.isEmpty } ?? []
        case .described(_, let shape), .list(let shape, _): shape.keys
        case .defined(let name): StepCatalog.definitions[name]?.keys ?? []
        default: []
        }
    }

    /// The shape of `key` in the mapping this value is (or may be).
    public subscript(key: String) -> ValueShape? {
        switch self {
        case .mapping(let arguments, _), .openMapping(let arguments): arguments.first { $0.key == key }?.shape
        case .either(let shapes): shapes.lazy.compactMap { $0[key] }.first
        case .described(_, let shape), .list(let shape, _): shape[key]
        case .defined(let name): StepCatalog.definitions[name]?[key]
        default: nil
        }
    }

    private static func properties(_ arguments: [Argument]) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "type": "object",
            "properties": .object(
                Dictionary(uniqueKeysWithValues: arguments.map { ($0.key, $0.shape.schema) })),
        ]
        let required = arguments.filter(\.required).map(\.key)
        if !required.isEmpty { members["required"] = .array(required.map(JSONValue.string)) }
        return members
    }

    /// The JSON Schema (draft 2020-12) of the value.
    public var schema: JSONValue {
        switch self {
        case .text: return ["type": "string"]
        case .flag: return ["type": "boolean"]
        case .integer(let minimum, let maximum):
            var members: [String: JSONValue] = ["type": "integer"]
            if let minimum { members["minimum"] = .int(Int64(minimum)) }
            if let maximum { members["maximum"] = .int(Int64(maximum)) }
            return .object(members)
        case .oneOf(let words): return ["enum": .array(words.map(JSONValue.string))]
        case .presence: return ["enum": ["present", "absent", true, false]]
        case .defined(let name): return ["$ref": .string("#/$defs/" + name)]
        case .mapping(let arguments, let onlyOne):
            var members = Self.properties(arguments)
            members["additionalProperties"] = false
            if onlyOne {
                members["minProperties"] = 1
                members["maxProperties"] = 1
            }
            return .object(members)
        case .openMapping(let arguments): return .object(Self.properties(arguments))
        case .dictionary(let value):
            return [
                "type": "object",
                "additionalProperties": value?.schema ?? [
                    "description": "A value to equal, or present / absent."
                ],
            ]
        case .list(let item, let minimumCount):
            var members: [String: JSONValue] = ["type": "array", "items": item.schema]
            if let minimumCount { members["minItems"] = .int(Int64(minimumCount)) }
            return .object(members)
        case .either(let shapes): return ["anyOf": .array(shapes.map(\.schema))]
        case .null: return ["type": "null"]
        case .described(let sentence, let shape):
            guard case .object(var members) = shape.schema else { return shape.schema }
            members["description"] = .string(sentence)
            return .object(members)
        }
    }
}

/// A key of a mapping in a scenario, and what its value may be.
public struct Argument: Sendable {
    public let key: String
    public let shape: ValueShape
    public let required: Bool

    public init(_ key: String, _ shape: ValueShape, required: Bool = false) {
        self.key = key
        self.shape = shape
        self.required = required
    }
}

/// How a step is written: its name alone, or a mapping from its name to its arguments.
public struct StepSignature: Sendable {
    public enum Form: Sendable {
        /// The name alone: `reboot`.
        case bare
        /// The name alone, or with arguments of this shape: `launch`, `launch: {app: …}`.
        case optional(ValueShape)
        /// The name with arguments of this shape: `advance: 1h`.
        case required(ValueShape)
    }

    public let form: Form
    /// A sentence for editors (the scenario reference says more).
    public let summary: String?

    /// The shape of the step's arguments (nil: it takes none).
    public var arguments: ValueShape? {
        switch form {
        case .bare: nil
        case .optional(let shape), .required(let shape): shape
        }
    }

    /// The keys of the step's arguments mapping.
    public var argumentKeys: [String] { arguments?.keys ?? [] }
}

extension StepKind {
    /// How the step is written and what its arguments are.
    public var signature: StepSignature {
        switch self {
        case .app: StepSignature(form: .optional(.mapping([StepCatalog.app])), summary: nil)
        case .device: StepSignature(form: .bare, summary: nil)
        case .sdk(let step): step.signature
        case .world(let step): step.signature
        case .flow(let step): step.signature
        }
    }
}

extension SDKStep {
    /// Every SDK call takes `app` and `error`, the outcomes allowed.
    fileprivate var signature: StepSignature {
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
                            Argument("fill", .dictionary(of: .text)),
                            Argument("consent", .defined("consent")),
                            Argument("cancel", .defined("interruptionPoint")),
                            Argument("abandon", .defined("interruptionPoint")),
                            Argument("prompt", .text), Argument("scopes", StepCatalog.words),
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
                            Argument("cancel", .flag), Argument("scopes", .list(.oneOf(["name", "email"]))),
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

extension WorldStep {
    fileprivate var signature: StepSignature {
        switch self {
        case .advance:
            return StepSignature(form: .required(.defined("duration")), summary: "Moves the world's time.")
        case .skew:
            return StepSignature(
                form: .required(.defined("duration")),
                summary: "Sets how far the device clock is ahead of the world (negative: behind).")
        case .network:
            let armed = ValueShape.defined("armedRequests")
            return StepSignature(
                form: .required(
                    .mapping([
                        Argument("reset", .flag), Argument("offline", .flag),
                        Argument("latency_ms", .integer(minimum: 0, maximum: 600_000)),
                        Argument("captive_portal", .flag), Argument("fail_next", armed),
                        Argument("lose_responses", armed), Argument("resend", armed),
                        Argument(
                            "status",
                            .mapping([
                                Argument("code", .integer(minimum: 100, maximum: 599), required: true),
                                Argument("count", .integer(minimum: 1, maximum: 10_000)),
                                Argument("path", .text),
                            ])),
                    ])),
                summary: "Changes the device's network conditions.")
        case .appleAccount:
            return StepSignature(
                form: .optional(
                    .mapping([
                        Argument("email", .text, required: true), Argument("given_name", .text),
                        Argument("family_name", .text), Argument("private_relay", .flag),
                    ])),
                summary: "Signs an Apple ID in on the phone; empty signs it out.")
        case .appleRevokeConsent:
            return StepSignature(
                form: .optional(.mapping([StepCatalog.app])),
                summary:
                    "The user stops using Apple ID with the app (embedded Apple); a running app is notified.")
        case .appleCredential:
            return StepSignature(
                form: .required(
                    .mapping([
                        Argument("state", .defined("appleCredentialState"), required: true),
                        Argument(
                            "team", .described("With state transferred: the team the app moves to.", .text)),
                        StepCatalog.app,
                    ])),
                summary:
                    "The credential state of the phone's Apple ID for the app changes at Apple (embedded Apple)."
            )
        case .issuer:
            return StepSignature(
                form: .required(
                    .mapping([
                        Argument("fault", .defined("fault")),
                        Argument("count", .integer(minimum: 1, maximum: 1_000_000)), Argument("path", .text),
                        Argument("delay_ms", .integer(minimum: 0, maximum: 600_000)),
                        Argument(
                            "status",
                            .described(
                                "http-html-error and oauth-error: the HTTP status answered.",
                                .integer(minimum: 100, maximum: 599))),
                        Argument("error", .described("oauth-error: the error code answered.", .text)),
                        Argument(
                            "error_description",
                            .described("oauth-error: the error_description answered.", .text)),
                        Argument("clear_faults", .flag),
                        Argument("rotate_keys", .either([.flag, .defined("signingAlgorithm")])),
                        Argument("user", .defined("user")),
                        Argument(
                            "clock",
                            .described(
                                "Moves the issuer's clock: advance by a duration, or set the offset from its start.",
                                .mapping(
                                    [
                                        Argument("advance", .defined("duration")),
                                        Argument("offset", .defined("duration")),
                                    ],
                                    onlyOne: true))),
                    ])),
                summary: "Embedded issuer only: one of fault, clear_faults, rotate_keys, user, clock.")
        }
    }
}

extension FlowStep {
    fileprivate var signature: StepSignature {
        switch self {
        case .parallel:
            let branch = ValueShape.either([.defined("step"), .list(.defined("step"), minimumCount: 1)])
            return StepSignature(
                form: .required(.list(branch, minimumCount: 2)),
                summary: "Branches started together: each a step, or a list of steps run in order.")
        case .runFlow:
            return StepSignature(
                form: .required(
                    .either([
                        .text,
                        .mapping([
                            Argument("file", .text, required: true), Argument("env", .defined("env")),
                            Argument("when", .either([.text, .flag])),
                        ]),
                    ])),
                summary: "Runs the steps of a flow file, relative to this one.")
        case .expect:
            return StepSignature(
                form: .required(.mapping([StepCatalog.app] + ExpectationKey.allCases.map(\.argument))),
                summary: "Checks the state of the world.")
        case .wait:
            return StepSignature(
                form: .required(
                    .mapping(
                        [
                            StepCatalog.app, Argument("sheet", .oneOf(["presented", "closed"])),
                            Argument("requests", .defined("requestMatch")),
                        ])),
                summary:
                    "Waits (real time, at most 10 s) until the app's sheet is presented or closed, or the device has sent count requests to path."
            )
        }
    }
}

extension ExpectationKey {
    /// The check as a key of `expect`, with what its value may be.
    public var argument: Argument { Argument(rawValue, shape) }

    private var shape: ValueShape {
        switch self {
        case .session, .refresh_token: .presence
        case .claims: .dictionary(of: nil)
        case .token_type: .text
        case .scopes: StepCatalog.words
        case .error: .either([.defined("callOutcome"), .null])
        case .requests: .either([.defined("requests"), .list(.defined("requests"))])
        case .keychain:
            .either([
                .integer(minimum: 0, maximum: 100_000),
                .mapping([Argument("items", .integer(minimum: 0, maximum: 100_000), required: true)]),
            ])
        case .cookies:
            .mapping([Argument("count", .integer(minimum: 0, maximum: 10_000)), Argument("name", .text)])
        case .issuer_user: .defined("issuerUserMatch")
        case .app_phase: .defined("appPhase")
        case .issuer_refresh_tokens: .defined("refreshTokenVerdict")
        case .apple_credential: .defined("appleCredentialState")
        case .signed_out_at_issuer:
            .described(
                "Whether the app's last signOut has evidence that the issuer ended its session: the post-logout redirect came back with the state sent.",
                .flag)
        case .login_forms:
            .described(
                "How many login forms the person has submitted in the app's web sheets (retries included), whatever path the issuer's form posts to.",
                .integer(minimum: 0, maximum: 10_000))
        }
    }
}

/// Shapes used in several places, and the argument every app-directed step takes.
public enum StepCatalog {
    /// `app: <bundle id>`: the app a step acts on (default: the scenario's first).
    static let app = Argument("app", .text)

    /// A word or a list of words (`scopes: openid profile` or `[openid, profile]`).
    static let words = ValueShape.either([.list(.text), .text])

    /// The shapes the schema names in `$defs` for the steps.
    public static let definitions: [String: ValueShape] = [
        "requestMatch": .described(
            "How many requests (at least 1), and only those to path when it is given.",
            .mapping([Argument("count", .integer(minimum: 1, maximum: 100_000)), Argument("path", .text)])),
        "armedRequests": .described(
            "The next requests a network condition applies to: a count, or {count, path}.",
            .either([.integer(minimum: 1, maximum: 10_000), .defined("requestMatch")])),
        "requests": .mapping([
            Argument("path", .text), Argument("endpoint", .defined("endpoint")), Argument("method", .text),
            Argument("params", .dictionary(of: nil)), Argument("headers", .dictionary(of: nil)),
            Argument("count", .integer(minimum: 0, maximum: 1_000_000)),
            Argument("at_least", .integer(minimum: 0, maximum: 1_000_000)),
        ]),
        "issuerUserMatch": .described(
            "A user at the embedded issuer, found by email; the other keys are fields to match.",
            .openMapping([Argument("email", .text, required: true)])),
    ]

    /// The JSON Schema of one step: every step's way of being written, as alternatives.
    public static var stepSchema: JSONValue {
        ["anyOf": .array(StepKind.allCases.map(schema))]
    }

    private static func schema(of kind: StepKind) -> JSONValue {
        let signature = kind.signature
        let name = JSONValue.string(kind.name)
        let bare: JSONValue = ["const": name]
        func keyed(_ value: JSONValue) -> JSONValue {
            [
                "type": "object", "additionalProperties": false, "properties": .object([kind.name: value]),
                "required": [name],
            ]
        }
        var schema: JSONValue
        switch signature.form {
        case .bare: schema = bare
        case .optional(let shape):
            schema = ["anyOf": [bare, keyed(["anyOf": [ValueShape.null.schema, shape.schema]])]]
        case .required(let shape): schema = keyed(shape.schema)
        }
        if let summary = signature.summary, case .object(var members) = schema {
            members["description"] = .string(summary)
            schema = .object(members)
        }
        return schema
    }
}

extension StepKind {
    /// The keys of the mapping at `path` within the step's arguments (no path: the arguments'
    /// own keys), as the loader allows them.
    public func keys(_ path: String...) -> [String] {
        var shape = signature.arguments
        for key in path { shape = shape?[key] }
        return shape?.keys ?? []
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
