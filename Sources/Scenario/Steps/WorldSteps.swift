public import JOSE
public import JSON
import OAuthCore
public import WorldVocabulary
import YAML

/// Changes to the world around the app.
public enum WorldStep: String, Hashable, Sendable, CaseIterable {
    case advance, skew, network, appleAccount, appleRevokeConsent, appleCredential, issuer
}

/// What a world step changes, with its arguments.
public enum WorldChange: Hashable, Sendable {
    /// Moves the world's time forward (tokens and codes age, sleeping work runs).
    case advance(seconds: Int64)
    /// Sets how far the device's clock is ahead of the world (negative: behind).
    case skew(seconds: Int64)
    /// A change to the device's network conditions.
    case network(NetworkChange)
    /// Signs an Apple ID in on the phone (nil: signs it out).
    case appleAccount(AppleAccountSetup?)
    /// On the phone: the user stops using Apple ID with the app (Settings › Apple ID › Sign in
    /// with Apple), so the app's credential state becomes `notFound` (the simulated Apple's
    /// default answer after a stop), and a running app is sent the revocation notification.
    case appleRevokeConsent(app: String?)
    /// At Apple: the credential state of the phone's Apple ID for the app changes from Apple's
    /// side (what each change means: `AppleCredentialChange`).
    case appleCredential(AppleCredentialChange, app: String?)
    /// An admin action on the embedded issuer.
    case issuer(IssuerAction)

    /// The step that makes this change.
    public var step: WorldStep {
        switch self {
        case .advance: .advance
        case .skew: .skew
        case .network: .network
        case .appleAccount: .appleAccount
        case .appleRevokeConsent: .appleRevokeConsent
        case .appleCredential: .appleCredential
        case .issuer: .issuer
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

extension WorldStep {
    var signature: StepSignature {
        switch self {
        case .advance:
            return StepSignature(form: .required(.defined("duration")), summary: "Moves the world's time.")
        case .skew:
            return StepSignature(
                form: .required(.defined("duration")),
                summary: "Sets how far the device clock is ahead of the world (negative: behind).")
        case .network:
            return Self.networkSignature
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
            return Self.issuerSignature
        }
    }

    /// `network:`: the conditions that change, and requests armed to fail, be lost or resent.
    private static var networkSignature: StepSignature {
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
    }

    /// `issuer:`: one action on the embedded issuer, with the settings of a fault.
    private static var issuerSignature: StepSignature {
        StepSignature(
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

// MARK: Decoding

extension StepDecoder {
    func world(_ step: WorldStep, _ arguments: YAMLNode?, at node: YAMLNode) throws(ScenarioError)
        -> WorldChange
    {
        let kind = StepKind.world(step)
        switch step {
        case .advance:
            guard let arguments else {
                throw reader.error(node, "advance needs a duration: advance: 3600 or 1h")
            }
            // World time only moves forward: the scheduler refuses to go back.
            let seconds = try reader.seconds(arguments, "advance")
            guard seconds >= 0 else { throw reader.error(arguments, "advance must not be negative") }
            return .advance(seconds: seconds)
        case .skew:
            guard let arguments else { throw reader.error(node, "skew needs a duration: skew: -5m") }
            return .skew(seconds: try reader.seconds(arguments, "skew"))
        case .appleRevokeConsent:
            let mapping = try optionalMapping(arguments, step.rawValue, allowed: kind.keys())
            return .appleRevokeConsent(app: try app(mapping, step.rawValue))
        case .appleCredential:
            guard let arguments else {
                throw reader.error(
                    node, "appleCredential needs a state: authorized, revoked, notFound or transferred")
            }
            let mapping = try reader.mapping(arguments, step.rawValue, allowed: kind.keys())
            return .appleCredential(
                try appleCredentialChange(mapping, at: arguments), app: try app(mapping, step.rawValue))
        case .network:
            guard let arguments else { throw reader.error(node, "network needs conditions") }
            return .network(try network(arguments))
        case .appleAccount:
            guard let arguments else { return .appleAccount(nil) }
            if case .mapping(let mapping) = arguments, mapping.pairs.isEmpty { return .appleAccount(nil) }
            return .appleAccount(
                try HeaderDecoder(reader: reader, env: env, overrides: [:]).appleAccount(
                    arguments, "appleAccount"))
        case .issuer:
            guard let arguments else {
                throw reader.error(node, "issuer needs an action: fault, clear_faults, rotate_keys or user")
            }
            return .issuer(try issuerAction(arguments))
        }
    }

    /// `appleCredential: {state, team}`: `team` only with `transferred`.
    func appleCredentialChange(_ mapping: YAMLMapping, at node: YAMLNode) throws(ScenarioError)
        -> AppleCredentialChange
    {
        guard let stateNode = mapping["state"] else {
            throw reader.error(
                node, "appleCredential needs a state: authorized, revoked, notFound or transferred")
        }
        let state = try appleCredentialState(stateNode, "appleCredential.state")
        let team = try reader.optionalString(mapping, "team", "appleCredential")
        if let teamNode = mapping["team"], state != .transferred {
            throw reader.error(teamNode, "appleCredential.team goes with state: transferred")
        }
        if team?.isEmpty == true, let teamNode = mapping["team"] {
            throw reader.error(teamNode, "appleCredential.team is empty")
        }
        switch state {
        case .authorized: return .authorized
        case .revoked: return .revoked
        case .notFound: return .notFound
        case .transferred: return .transferred(team: team)
        }
    }

    func network(_ node: YAMLNode) throws(ScenarioError) -> NetworkChange {
        let network = StepKind.world(.network)
        let mapping = try reader.mapping(node, "network", allowed: network.keys())
        var change = NetworkChange()
        if let node = mapping["reset"] { change.reset = try reader.bool(node, "network.reset") }
        if let node = mapping["offline"] { change.offline = try reader.bool(node, "network.offline") }
        if let node = mapping["latency_ms"] {
            change.latencyMilliseconds = try reader.int(node, "network.latency_ms", range: 0...600_000)
        }
        if let node = mapping["captive_portal"] {
            change.captivePortal = try reader.bool(node, "network.captive_portal")
        }
        if let node = mapping["fail_next"] { change.failNext = try armed(node, "network.fail_next") }
        if let node = mapping["lose_responses"] {
            change.loseResponses = try armed(node, "network.lose_responses")
        }
        if let node = mapping["resend"] { change.resendRequests = try armed(node, "network.resend") }
        if let node = mapping["status"] {
            let inner = try reader.mapping(node, "network.status", allowed: network.keys("status"))
            guard let code = inner["code"] else { throw reader.error(node, "network.status needs a code") }
            change.injectedStatus = try reader.int(code, "network.status.code", range: 100...599)
            change.injectedRequests = try armed(node, "network.status", allowed: network.keys("status"))
        }
        return change
    }

    /// `3`, or `{count: 3, path: /oauth/token}`.
    func armed(
        _ node: YAMLNode, _ context: String,
        allowed: [String] = StepCatalog.definitions["requestMatch"]?.keys ?? []
    ) throws(ScenarioError) -> ArmedRequests {
        if case .scalar = node {
            return ArmedRequests(count: try reader.int(node, context, range: 1...10_000))
        }
        let mapping = try reader.mapping(node, context, allowed: allowed)
        var armed = ArmedRequests()
        if let node = mapping["count"] {
            armed.count = try reader.int(node, "\(context).count", range: 1...10_000)
        }
        armed.path = try reader.optionalString(mapping, "path", context)
        return armed
    }

    func issuerAction(_ node: YAMLNode) throws(ScenarioError) -> IssuerAction {
        let issuer = StepKind.world(.issuer)
        let mapping = try reader.mapping(node, "issuer", allowed: issuer.keys())
        let actions = ["fault", "clear_faults", "rotate_keys", "user", "clock"].compactMap { key in
            mapping[key].map { (key: key, value: $0) }
        }
        guard actions.count == 1, let action = actions.first else {
            throw reader.error(
                node,
                "issuer takes one action of fault, clear_faults, rotate_keys, user, clock; found \(actions.count)"
            )
        }
        switch action.key {
        case "fault":
            let fault = try reader.named(action.value, "issuer.fault", IssuerFault.self)
            let count =
                try mapping["count"].map { (n: YAMLNode) throws(ScenarioError) in
                    try reader.int(n, "issuer.count", range: 1...1_000_000)
                } ?? 1
            let delay = try mapping["delay_ms"].map { (n: YAMLNode) throws(ScenarioError) in
                try reader.int(n, "issuer.delay_ms", range: 0...600_000)
            }
            let status = try mapping["status"].map { (n: YAMLNode) throws(ScenarioError) in
                try reader.int(n, "issuer.status", range: 100...599)
            }
            return .fault(
                FaultSetup(
                    fault, count: count, path: try reader.optionalString(mapping, "path", "issuer"),
                    delayMilliseconds: delay, status: status,
                    error: try reader.optionalString(mapping, "error", "issuer"),
                    errorDescription: try reader.optionalString(mapping, "error_description", "issuer")))
        case "clear_faults":
            return .clearFaults
        case "clock":
            let clock = try reader.mapping(action.value, "issuer.clock", allowed: issuer.keys("clock"))
            switch (clock["advance"], clock["offset"]) {
            case (let advance?, nil):
                let seconds = try reader.seconds(advance, "issuer.clock.advance")
                guard seconds >= 0 else {
                    throw reader.error(advance, "issuer.clock.advance must not be negative")
                }
                return .clock(.advance(seconds: seconds))
            case (nil, let offset?):
                return .clock(.offset(seconds: try reader.seconds(offset, "issuer.clock.offset")))
            default:
                throw reader.error(action.value, "issuer.clock takes one of advance or offset")
            }
        case "rotate_keys":
            let value = action.value
            if value.bool != nil { return .rotateKeys(algorithm: nil) }
            return .rotateKeys(algorithm: try reader.named(value, "issuer.rotate_keys", JWSAlgorithm.self))
        default:
            let user = action.value
            _ = try reader.mapping(user, "issuer.user", allowed: UserUpdate.jsonKeys)
            guard case .object(let fields) = try reader.json(user) else {
                throw reader.error(user, "issuer.user must be a mapping with at least an email")
            }
            do throws(OAuthError) {
                return .user(try UserUpdate(json: fields))
            } catch {
                throw reader.error(user, "issuer.user: \(error.description)")
            }
        }
    }
}

// MARK: Encoding

extension ScenarioEncoder {
    /// A world step, by the change it makes.
    static func world(_ change: WorldChange) -> JSONValue {
        let name = change.step.rawValue
        switch change {
        case .advance(let seconds), .skew(let seconds):
            return [name: .int(seconds)]
        case .appleRevokeConsent(let app):
            return named(name, appOnly(app))
        case .appleCredential(let change, let app):
            var arguments = appOnly(app)
            arguments["state"] = .string(change.state.rawValue)
            if case .transferred(let team?) = change { arguments["team"] = .string(team) }
            return [name: .object(arguments)]
        case .network(let change):
            return [name: .object(network(change))]
        case .appleAccount(let account):
            return [name: account.map(appleAccount) ?? .object([:])]
        case .issuer(let action):
            return [name: .object(issuer(action))]
        }
    }

    static func network(_ change: NetworkChange) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if change.reset { members["reset"] = true }
        if let offline = change.offline { members["offline"] = .bool(offline) }
        if let latency = change.latencyMilliseconds { members["latency_ms"] = .int(Int64(latency)) }
        if let portal = change.captivePortal { members["captive_portal"] = .bool(portal) }
        if let armed = change.failNext { members["fail_next"] = .object(self.armed(armed)) }
        if let armed = change.loseResponses { members["lose_responses"] = .object(self.armed(armed)) }
        if let armed = change.resendRequests { members["resend"] = .object(self.armed(armed)) }
        if let status = change.injectedStatus {
            var inner = armed(change.injectedRequests ?? ArmedRequests())
            inner["code"] = .int(Int64(status))
            members["status"] = .object(inner)
        }
        return members
    }

    static func armed(_ armed: ArmedRequests) -> [String: JSONValue] {
        var members: [String: JSONValue] = ["count": .int(Int64(armed.count))]
        if let path = armed.path { members["path"] = .string(path) }
        return members
    }

    /// The members of an `issuer:` step, which are also the admin API's request bodies.
    public static func issuer(_ action: IssuerAction) -> [String: JSONValue] {
        switch action {
        case .fault(let injection):
            var members: [String: JSONValue] = [
                "fault": .string(injection.fault.rawValue), "count": .int(Int64(injection.count)),
            ]
            if let path = injection.path { members["path"] = .string(path) }
            if let delay = injection.delayMilliseconds { members["delay_ms"] = .int(Int64(delay)) }
            if let status = injection.status { members["status"] = .int(Int64(status)) }
            if let error = injection.error { members["error"] = .string(error) }
            if let description = injection.errorDescription {
                members["error_description"] = .string(description)
            }
            return members
        case .clearFaults:
            return ["clear_faults": true]
        case .rotateKeys(let algorithm):
            return ["rotate_keys": algorithm.map { .string($0.rawValue) } ?? true]
        case .user(let update):
            return ["user": .object(update.json)]
        case .clock(.advance(let seconds)):
            return ["clock": ["advance": .int(seconds)]]
        case .clock(.offset(let seconds)):
            return ["clock": ["offset": .int(seconds)]]
        }
    }
}
