public import JOSE
public import JSON
import OAuthCore
public import SignInSDK
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
    public var state: AppleIDCredentialState {
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
    /// The step's declaration, from which its signature, its decoding and its encoding come.
    var codec: StepCodec {
        switch self {
        case .advance:
            // World time only moves forward: the scheduler refuses to go back.
            duration(
                summary: "Moves the world's time.", needs: "a duration: advance: 3600 or 1h",
                forwardOnly: true,
                WorldChange.advance
            ) { if case .advance(let seconds) = $0 { seconds } else { nil } }
        case .skew:
            duration(
                summary: "Sets how far the device clock is ahead of the world (negative: behind).",
                needs: "a duration: skew: -5m", forwardOnly: false, WorldChange.skew
            ) { if case .skew(let seconds) = $0 { seconds } else { nil } }
        case .network:
            change(
                summary: "Changes the device's network conditions.", needs: "conditions",
                NetworkChange.fields,
                from: NetworkChange(), WorldChange.network
            ) { if case .network(let change) = $0 { change } else { nil } }
        case .appleAccount:
            Self.appleAccountCodec
        case .appleRevokeConsent:
            change(
                summary:
                    "The user stops using Apple ID with the app (embedded Apple); a running app is notified.",
                [StepField<String?>.app(\.self)], from: nil, WorldChange.appleRevokeConsent
            ) { if case .appleRevokeConsent(let app) = $0 { app } else { nil } }
        case .appleCredential:
            change(
                summary:
                    "The credential state of the phone's Apple ID for the app changes at Apple (embedded Apple).",
                needs: AppleCredentialArguments.needs, AppleCredentialArguments.fields,
                from: AppleCredentialArguments(), rules: AppleCredentialArguments.check, \.change
            ) {
                if case .appleCredential(let change, let app) = $0 {
                    AppleCredentialArguments(change, app: app)
                } else {
                    nil
                }
            }
        case .issuer:
            Self.issuerCodec
        }
    }

    /// A world step whose arguments are `fields`, read into a `Root` from `initial` and made
    /// into the change by `make`; `root` is the way back.
    private func change<Root>(
        summary: String, needs: String? = nil, _ fields: StepFields<Root>, from initial: Root,
        rules: ((Root, YAMLNode, FieldReading) throws(ScenarioError) -> Void)? = nil,
        _ make: @escaping (Root) -> WorldChange, root: @escaping (WorldChange) -> Root?
    ) -> StepCodec {
        .fields(
            rawValue, summary: summary, needs: needs, fields, from: initial, rules: rules,
            action: { .world(make($0)) },
            root: { action in
                guard case .world(let change) = action else { return nil }
                return root(change)
            })
    }

    /// `advance: 1h`, `skew: -5m`: a duration, seconds or with a unit (`ScenarioReader.seconds`).
    private func duration(
        summary: String, needs: String, forwardOnly: Bool, _ make: @escaping (Int64) -> WorldChange,
        seconds: @escaping (WorldChange) -> Int64?
    ) -> StepCodec {
        let name = rawValue
        return .custom(
            name, StepSignature(form: .required(.defined("duration")), summary: summary),
            decode: { (arguments, nameNode, decoder) throws(ScenarioError) in
                guard let arguments else { throw decoder.reader.error(nameNode, "\(name) needs \(needs)") }
                let value = try decoder.reader.seconds(arguments, name)
                if forwardOnly, value < 0 {
                    throw decoder.reader.error(arguments, "\(name) must not be negative")
                }
                return .world(make(value))
            },
            encode: { action in
                guard case .world(let change) = action, let value = seconds(change) else {
                    return .string(name)
                }
                return [name: .int(value)]
            })
    }

    /// `appleAccount: {email, …}` signs an Apple ID in; alone or empty, signs it out (written
    /// `appleAccount: {}`).
    private static var appleAccountCodec: StepCodec {
        let name = WorldStep.appleAccount.rawValue
        return .custom(
            name,
            StepSignature(
                form: .optional(AppleAccountSetup.fields.shape),
                summary: "Signs an Apple ID in on the phone; empty signs it out."),
            declaresFields: true,
            decode: { (arguments, _, decoder) throws(ScenarioError) in
                guard let arguments else { return .world(.appleAccount(nil)) }
                if case .mapping(let mapping) = arguments, mapping.pairs.isEmpty {
                    return .world(.appleAccount(nil))
                }
                return .world(.appleAccount(try decoder.headerDecoder.appleAccount(arguments, name)))
            },
            encode: { action in
                guard case .world(.appleAccount(let account)) = action else { return .string(name) }
                return [name: account.map(ScenarioEncoder.appleAccount) ?? .object([:])]
            })
    }

    /// `issuer:`: one action on the embedded issuer, a fault with its settings (`FaultSetup`'s
    /// fields), or another action.
    private static var issuerCodec: StepCodec {
        let fault = FaultSetup.settingFields
        return .custom(
            WorldStep.issuer.rawValue,
            StepSignature(
                form: .required(
                    .mapping(
                        [Argument("fault", .defined("fault"))] + fault.arguments + [
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
                summary: "Embedded issuer only: one of fault, clear_faults, rotate_keys, user, clock."),
            decode: { (arguments, nameNode, decoder) throws(ScenarioError) in
                guard let arguments else {
                    throw decoder.reader.error(
                        nameNode, "issuer needs an action: fault, clear_faults, rotate_keys or user")
                }
                return .world(.issuer(try decoder.issuerAction(arguments)))
            },
            encode: { action in
                guard case .world(.issuer(let issuer)) = action else { return .string("issuer") }
                return ["issuer": .object(ScenarioEncoder.issuer(issuer))]
            })
    }
}

/// An `appleCredential` step's arguments: the state, the team of a transfer, the app.
struct AppleCredentialArguments {
    var state = AppleIDCredentialState.authorized
    var team: String?
    var app: String?

    init() {}

    init(_ change: AppleCredentialChange, app: String?) {
        state = change.state
        if case .transferred(let team) = change { self.team = team }
        self.app = app
    }

    /// What the step alone, or without `state`, is said to need.
    static let needs = "a state: authorized, revoked, notFound or transferred"

    static var fields: StepFields<AppleCredentialArguments> {
        [
            StepField.named("state", \.state, .defined("appleCredentialState")).required(needs),
            StepField.text("team", \.team).described("With state transferred: the team the app moves to."),
            .app(\.app),
        ]
    }

    /// `team` only with `transferred`, and not empty.
    static func check(_ arguments: AppleCredentialArguments, _ node: YAMLNode, _ reading: FieldReading)
        throws(ScenarioError)
    {
        guard case .mapping(let mapping) = node, let teamNode = mapping["team"] else { return }
        if arguments.state != .transferred {
            throw reading.reader.error(teamNode, "\(reading.context("team")) goes with state: transferred")
        }
        if arguments.team?.isEmpty == true {
            throw reading.reader.error(teamNode, "\(reading.context("team")) is empty")
        }
    }

    /// The change the step makes, at its app.
    var change: WorldChange {
        let change: AppleCredentialChange =
            switch state {
            case .authorized: .authorized
            case .revoked: .revoked
            case .notFound: .notFound
            case .transferred: .transferred(team: team)
            }
        return .appleCredential(change, app: app)
    }
}

extension AppleAccountSetup {
    /// An Apple ID's keys, in an `appleAccount` step and the header's `device.apple_account`.
    static var fields: StepFields<AppleAccountSetup> {
        [
            StepField.text("email", \.email).required("an email"), .text("given_name", \.givenName),
            .text("family_name", \.familyName), .flag("private_relay", \.privateRelay, default: false),
        ]
    }
}

extension NetworkChange {
    /// `network:`'s keys: the conditions that change, and requests armed to fail, be lost or
    /// resent, or answered with a status.
    static var fields: StepFields<NetworkChange> {
        [
            .flag("reset", \.reset, default: false), .flag("offline", \.offline),
            .integer("latency_ms", \.latencyMilliseconds, range: 0...600_000),
            .flag("captive_portal", \.captivePortal), .armed("fail_next", \.failNext),
            .armed("lose_responses", \.loseResponses), .armed("resend", \.resendRequests),
            .mapping("status", \.injected, InjectedStatus.fields, from: InjectedStatus()),
        ]
    }

    /// `injectedStatus` and `injectedRequests` together, as `status:` writes them.
    var injected: InjectedStatus? {
        get { injectedStatus.map { InjectedStatus(code: $0, requests: injectedRequests ?? ArmedRequests()) } }
        set {
            injectedStatus = newValue?.code
            injectedRequests = newValue?.requests
        }
    }
}

/// `network: {status: {code, count, path}}`: the status the network answers, and to which
/// requests.
struct InjectedStatus {
    var code = 0
    var requests = ArmedRequests()

    static var fields: StepFields<InjectedStatus> {
        [StepField.integer("code", \.code, range: 100...599).required("a code")]
            + ArmedRequests.fields.within(\.requests)
    }
}

extension ArmedRequests {
    /// `{count, path}` of a network condition (`fail_next: {count: 2}`).
    static var fields: StepFields<ArmedRequests> {
        [.integer("count", \.count, range: 1...10_000), .text("path", \.path)]
    }

    /// `{count, path}` of the requests a `wait` waits for (the schema's `requestMatch`).
    static var matchFields: StepFields<ArmedRequests> {
        [.integer("count", \.count, range: 1...100_000), .text("path", \.path)]
    }
}

extension StepField {
    /// `fail_next: 3` or `fail_next: {count: 3, path: /oauth/token}`: the next requests a
    /// network condition applies to; written as the mapping.
    fileprivate static func armed(_ key: String, _ path: WritableKeyPath<Root, ArmedRequests?>) -> StepField {
        let fields = ArmedRequests.fields
        return StepField(
            Argument(key, .defined("armedRequests")),
            decode: { (root, node, reading) throws(ScenarioError) in
                if case .scalar = node {
                    let count = try reading.reader.int(node, reading.context(key), range: 1...10_000)
                    root[keyPath: path] = ArmedRequests(count: count)
                } else {
                    root[keyPath: path] = try fields.decode(node, from: ArmedRequests(), reading.nested(key))
                }
            },
            encode: { root in root[keyPath: path].map { .object(fields.encode($0)) } })
    }
}

extension FaultSetup {
    /// The settings of an `issuer: {fault: …}` step, beside `fault`.
    static var settingFields: StepFields<FaultSetup> {
        [
            .integer("count", \.count, range: 1...1_000_000), .text("path", \.path),
            .integer("delay_ms", \.delayMilliseconds, range: 0...600_000),
            StepField.integer("status", \.status, range: 100...599)
                .described("http-html-error and oauth-error: the HTTP status answered."),
            StepField.text("error", \.error).described("oauth-error: the error code answered."),
            StepField.text("error_description", \.errorDescription)
                .described("oauth-error: the error_description answered."),
        ]
    }
}

// MARK: Decoding

extension StepDecoder {
    /// The header's decoder, for what a step shares with the header (an Apple account).
    var headerDecoder: HeaderDecoder { HeaderDecoder(reader: reader, env: env, overrides: [:]) }

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
            var setup = FaultSetup(try reader.named(action.value, "issuer.fault", IssuerFault.self))
            try FaultSetup.settingFields.decode(
                mapping, at: node, into: &setup, FieldReading(decoder: self, path: "issuer"))
            return .fault(setup)
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
    /// The members of an `issuer:` step, which are also the admin API's request bodies.
    public static func issuer(_ action: IssuerAction) -> [String: JSONValue] {
        switch action {
        case .fault(let setup):
            var members = FaultSetup.settingFields.encode(setup)
            members["fault"] = .string(setup.fault.rawValue)
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
