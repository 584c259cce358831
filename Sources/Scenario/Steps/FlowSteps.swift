import Device
import Errors
import JSON
import SignInSDK
import YAML

/// Steps that order or check other steps.
public enum FlowStep: String, Hashable, Sendable, CaseIterable {
    case parallel, runFlow, expect, wait
}

/// What a flow step does, with its arguments.
public enum FlowAction: Hashable, Sendable {
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

/// What a `wait` step waits for.
public enum WaitCondition: Hashable, Sendable {
    /// The app's web sheet is up (or, with `presented: false`, closed).
    case sheet(presented: Bool, app: String?)
    /// The device has sent at least `count` requests to `path` (any path when nil).
    case requests(path: String?, count: Int)
}

/// The checks an `expect` step takes.
public enum ExpectationKey: String, Hashable, Sendable, CaseIterable {
    case session, claims, refresh_token, token_type, scopes, error, requests, keychain, cookies
    case issuer_user, app_phase, issuer_refresh_tokens, apple_credential, signed_out_at_issuer
    case login_forms, sheet
}

/// What a `wait: {sheet: …}` waits for the app's web sheet to be.
public enum SheetState: String, Hashable, Sendable, CaseIterable {
    case presented
    case closed
}

/// `present` or `absent`: how `expect` writes whether something is there (`true` and `false`
/// too).
public enum Presence: String, Hashable, Sendable, CaseIterable {
    case present
    case absent
}

/// An issuer endpoint named by its role, found in the issuer's discovery document
/// (OpenID Connect Discovery 1.0 §3), so a check holds against any issuer.
public enum EndpointRole: String, Hashable, Sendable, CaseIterable {
    case discovery, jwks, authorization, token, userinfo, end_session, revocation
}

extension FlowStep {
    /// The step's declaration, from which its signature, its decoding and its encoding come.
    /// `wait` is declared by its fields; the others are written otherwise than as a mapping of
    /// keys (a list of branches, a file, a check per key), so each declares its shape, decoding
    /// and encoding here together.
    var codec: StepCodec {
        switch self {
        case .parallel: Self.parallelCodec
        case .runFlow: Self.runFlowCodec
        case .expect: Self.expectCodec
        case .wait:
            .fields(
                rawValue,
                summary:
                    "Waits (real time, at most 10 s) until the app's sheet is presented or closed, or the device has sent count requests to path.",
                needs: "a condition: sheet or requests", WaitArguments.fields, from: WaitArguments(),
                rules: WaitArguments.check, action: { .flow(.wait($0.condition)) },
                root: { action in
                    guard case .flow(.wait(let condition)) = action else { return nil }
                    return WaitArguments(condition)
                })
        }
    }

    private static var parallelCodec: StepCodec {
        let branch = ValueShape.either([.defined("step"), .list(.defined("step"), minimumCount: 1)])
        return .custom(
            "parallel",
            StepSignature(
                form: .required(.list(branch, minimumCount: 2)),
                summary: "Branches started together: each a step, or a list of steps run in order."),
            decode: { (arguments, nameNode, decoder) throws(ScenarioError) in
                try decoder.parallel(arguments, at: nameNode).map(StepAction.flow)
            },
            encode: { action in
                guard case .flow(.parallel(let branches)) = action else { return .string("parallel") }
                return ScenarioEncoder.parallel(branches)
            })
    }

    private static var runFlowCodec: StepCodec {
        .custom(
            "runFlow",
            StepSignature(
                form: .required(
                    .either([
                        .text,
                        .mapping([
                            Argument("file", .text, required: true), Argument("env", .defined("env")),
                            Argument("when", .either([.text, .flag])),
                        ]),
                    ])),
                summary: "Runs the steps of a flow file, relative to this one."),
            decode: { (arguments, nameNode, decoder) throws(ScenarioError) in
                guard let arguments else { throw decoder.reader.error(nameNode, "runFlow needs a file") }
                return try decoder.include(arguments).map(StepAction.flow)
            },
            encode: { action in
                // Written inlined: only reached for an include nested where a single step is
                // expected, where a list is.
                guard case .flow(.include(_, let inner)) = action else { return .string("runFlow") }
                return .array(ScenarioEncoder.steps(inner))
            })
    }

    private static var expectCodec: StepCodec {
        .custom(
            "expect",
            StepSignature(
                form: .required(.mapping([StepCatalog.app] + ExpectationKey.allCases.map(\.argument))),
                summary: "Checks the state of the world."),
            decode: { (arguments, nameNode, decoder) throws(ScenarioError) in
                guard let arguments else {
                    throw decoder.reader.error(nameNode, "expect needs at least one check")
                }
                return .flow(.expect(try decoder.expectations(arguments)))
            },
            encode: { action in
                guard case .flow(.expect(let expectations)) = action else { return .string("expect") }
                return ["expect": .object(ScenarioEncoder.expect(expectations))]
            })
    }
}

/// A `wait` step's arguments: one condition, `sheet` (of `app`) or `requests`.
struct WaitArguments {
    var app: String?
    var sheet: SheetState?
    var requests: ArmedRequests?

    init() {}

    init(_ condition: WaitCondition) {
        switch condition {
        case .sheet(let presented, let app):
            sheet = presented ? .presented : .closed
            self.app = app
        case .requests(let path, let count):
            requests = ArmedRequests(count: count, path: path)
        }
    }

    static var fields: StepFields<WaitArguments> {
        [
            .app(\.app), .named("sheet", \.sheet, .defined("sheetState")),
            StepField.mapping("requests", \.requests, ArmedRequests.matchFields, from: ArmedRequests())
                .shaped(.defined("requestMatch")),
        ]
    }

    /// One condition: `sheet` or `requests`.
    static func check(_ arguments: WaitArguments, _ node: YAMLNode, _ reading: FieldReading)
        throws(ScenarioError)
    {
        guard (arguments.sheet == nil) != (arguments.requests == nil) else {
            throw reading.reader.error(node, "wait takes one condition: sheet or requests")
        }
    }

    /// What the step waits for (`check` has made sure there is one condition).
    var condition: WaitCondition {
        if let requests { return .requests(path: requests.path, count: requests.count) }
        return .sheet(presented: sheet != .closed, app: app)
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
        case .error: .either([.defined("lastError"), .null])
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
                "Whether the app's last signOut is proved to have ended the issuer's session, checked when this runs: an authorization request with prompt=none in the browser store of the app's sign-ins answered login_required (or shown the login form), or the refresh token the app held refused. A redirect back with the state is only an acknowledgement. Put it right after the signOut.",
                .flag)
        case .login_forms:
            .described(
                "How many login forms the person has submitted in the app's web sheets (retries included), whatever path the issuer's form posts to.",
                .integer(minimum: 0, maximum: 10_000))
        case .sheet:
            .described(
                "How the app's last web sheet ended: callback, or the code of the error that ended it.",
                .defined("sheetEnding"))
        }
    }
}

// MARK: Decoding

extension StepDecoder {
    /// The branches of a `parallel` block: each a step, or a list of steps run in order.
    func branches(_ node: YAMLNode) throws(ScenarioError) -> [Step] {
        guard case .sequence(let sequence) = node else {
            throw reader.error(node, "parallel must be a list of steps, found \(node.typeDescription)")
        }
        var branches: [Step] = []
        for item in sequence.items {
            if case .sequence = item {
                let inner = try steps(item, "a parallel branch")
                guard !inner.isEmpty else { throw reader.error(item, "a parallel branch is empty") }
                branches.append(
                    Step(
                        .flow(.include(file: reader.file, steps: inner)), name: "sequence",
                        location: reader.location(item)))
            } else if let step = reader.problems.attempt({ () throws(ScenarioError) in try step(item) })
                ?? nil
            {
                branches.append(step)
            }
        }
        return branches
    }

    /// A `parallel` block: at least two branches.
    func parallel(_ arguments: YAMLNode?, at node: YAMLNode) throws(ScenarioError) -> FlowAction? {
        guard let arguments else { throw reader.error(node, "parallel needs a list of steps") }
        if case .sequence(let sequence) = arguments, sequence.items.count < 2 {
            throw reader.error(arguments, "parallel needs at least two steps")
        }
        let found = reader.problems.problems.count
        let inner = try branches(arguments)
        // Fewer for want of valid branches is a problem recorded already.
        guard inner.count >= 2 || reader.problems.problems.count > found else {
            throw reader.error(arguments, "parallel needs at least two steps")
        }
        return .parallel(inner)
    }

    func include(_ node: YAMLNode) throws(ScenarioError) -> FlowAction? {
        var fileNode = node
        var flowEnv = env
        if case .mapping = node {
            let mapping = try reader.mapping(node, "runFlow", allowed: StepKind.flow(.runFlow).keys())
            guard let file = mapping["file"] else { throw reader.error(node, "runFlow needs a file") }
            fileNode = file
            if let envNode = mapping["env"] {
                let values = try ScenarioLoader.variables(envNode, reader: reader, context: "runFlow.env")
                for (key, value) in values { flowEnv[key] = value }
            }
            if let when = mapping["when"], !(try condition(when)) { return nil }
        }
        let relative = try reader.string(fileNode, "runFlow.file")
        let path = Self.resolve(relative, from: reader.file)
        guard !includeStack.contains(path) else {
            throw reader.error(
                fileNode,
                "runFlow includes \(relative) again (a cycle: \(includeStack.joined(separator: " → ")))")
        }
        guard includeStack.count < ScenarioLoader.maximumIncludeDepth else {
            throw reader.error(
                fileNode, "runFlow includes nest deeper than \(ScenarioLoader.maximumIncludeDepth)")
        }
        let bytes = try ScenarioLoader.read(path, from: reader.location(fileNode))
        let root = try ScenarioLoader.document(bytes, file: path)
        let included = ScenarioReader(file: path, problems: reader.problems)
        var stepsNode = root
        if case .mapping = root {
            let mapping = try included.mapping(root, "a flow", allowed: ["description", "env", "steps"])
            if let envNode = mapping["env"] {
                // The flow's own defaults; the including runFlow's env and the scenario's win.
                for (key, value) in try ScenarioLoader.variables(envNode, reader: included, context: "env")
                where flowEnv[key] == nil {
                    flowEnv[key] = value
                }
            }
            guard let steps = mapping["steps"] else { throw included.error(root, "the flow has no steps") }
            stepsNode = steps
        }
        let substituted = Substitution(env: flowEnv, file: path, problems: reader.problems).apply(
            to: stepsNode)
        let decoder = StepDecoder(
            reader: included, appIDs: appIDs, env: flowEnv, includeStack: includeStack + [path])
        return .include(file: path, steps: try decoder.steps(substituted, "the flow's steps"))
    }

    /// `when:` after substitution: true unless empty, `false`, `0`, `no` or `off`; or
    /// `A == B` / `A != B` comparing text.
    func condition(_ node: YAMLNode) throws(ScenarioError) -> Bool {
        if let value = node.bool { return value }
        let text = try Substitution(env: env, file: reader.file, problems: reader.problems).substitute(
            try reader.string(node, "runFlow.when"), mark: node.mark)
        for (operation, equal) in [(" == ", true), (" != ", false)] {
            if let range = text.range(of: operation) {
                let left = text[..<range.lowerBound].trimmingSpaces
                let right = text[range.upperBound...].trimmingSpaces
                return (left == right) == equal
            }
        }
        return !["", "false", "0", "no", "off"].contains(text.trimmingSpaces.lowercased())
    }

    /// A path relative to the including file's folder.
    static func resolve(_ path: String, from file: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }

    func expectations(_ node: YAMLNode) throws(ScenarioError) -> [Expectation] {
        let mapping = try reader.mapping(node, "expect", allowed: StepKind.flow(.expect).keys())
        let app = try app(mapping, "expect")
        var result: [Expectation] = []
        var checks = 0
        for pair in mapping.pairs {
            let key = pair.key.scalar?.value ?? ""
            if key != "app" { checks += 1 }
            // A check with a problem is recorded, and the next one checked.
            reader.problems.attempt { () throws(ScenarioError) in
                result += try expectations(key, pair.value, at: reader.location(pair.key), app: app)
            }
        }
        guard checks > 0 else { throw reader.error(node, "expect needs at least one check") }
        return result
    }

    /// The check `key: value` of an `expect` step (several for a list of request checks).
    func expectations(_ key: String, _ value: YAMLNode, at location: SourceLocation, app: String?)
        throws(ScenarioError) -> [Expectation]
    {
        // `app`, or an unknown key the mapping's read recorded.
        guard let check = ExpectationKey(rawValue: key) else { return [] }
        let expect = StepKind.flow(.expect)
        let kind: Expectation.Kind
        switch check {
        case .session: kind = .session(present: try presence(value, "expect.session"), app: app)
        case .refresh_token:
            kind = .refreshToken(present: try presence(value, "expect.refresh_token"), app: app)
        case .claims: kind = .claims(try reader.matches(value, "expect.claims"), app: app)
        case .scopes: kind = .scopes(try reader.strings(value, "expect.scopes"), app: app)
        case .token_type: kind = .tokenType(try reader.string(value, "expect.token_type"), app: app)
        case .error: kind = .lastError(try lastError(value))
        case .keychain: kind = .keychainItems(try keychainItems(value))
        case .cookies:
            let inner = try reader.mapping(value, "expect.cookies", allowed: expect.keys("cookies"))
            kind = .browserCookies(
                count: try inner["count"].map { (n: YAMLNode) throws(ScenarioError) in
                    try reader.int(n, "expect.cookies.count", range: 0...10_000)
                },
                named: try reader.optionalString(inner, "name", "expect.cookies"))
        case .issuer_user: kind = try issuerUser(value)
        case .issuer_refresh_tokens:
            kind = .issuerRefreshTokens(
                try reader.named(value, "expect.issuer_refresh_tokens", RefreshTokenVerdict.self))
        case .apple_credential:
            kind = .appleCredential(
                try appleCredentialState(value, "expect.apple_credential"), app: app)
        case .app_phase:
            kind = .appPhase(try reader.named(value, "expect.app_phase", AppPhase.self), app: app)
        case .signed_out_at_issuer:
            kind = .signedOutAtIssuer(try reader.bool(value, "expect.signed_out_at_issuer"), app: app)
        case .login_forms:
            kind = .loginForms(try reader.int(value, "expect.login_forms", range: 0...10_000), app: app)
        case .sheet: kind = .sheet(try sheetEnding(value), app: app)
        case .requests:
            if case .sequence(let items) = value {
                var checks: [Expectation] = []
                for item in items.items {
                    checks.append(Expectation(.requests(try requests(item)), location: reader.location(item)))
                }
                return checks
            }
            kind = .requests(try requests(value))
        }
        return [Expectation(kind, location: location)]
    }

    /// `expect: {error: CODE}` (or `none`): the SDK's last error, nil for none.
    func lastError(_ value: YAMLNode) throws(ScenarioError) -> SignInError.Code? {
        let given = value.isNull ? [.success] : try outcomes(value, "expect.error")
        guard given.count == 1, let outcome = given.first else {
            throw reader.error(value, "expect.error takes one code (or none)")
        }
        switch outcome {
        case .success: return nil
        case .failure(let code): return code
        case .finding(let finding):
            throw reader.error(
                value,
                "expect.error checks the SDK's last error; \(finding.rawValue) is what the run finds in a "
                    + "call: write it as that step's error")
        }
    }

    /// `expect: {keychain: N}` or `{keychain: {items: N}}`.
    func keychainItems(_ value: YAMLNode) throws(ScenarioError) -> Int {
        guard case .mapping = value else {
            return try reader.int(value, "expect.keychain", range: 0...100_000)
        }
        let keys = StepKind.flow(.expect).keys("keychain")
        let inner = try reader.mapping(value, "expect.keychain", allowed: keys)
        guard let items = inner["items"] else { throw reader.error(value, "expect.keychain needs items") }
        return try reader.int(items, "expect.keychain.items", range: 0...100_000)
    }

    /// `expect: {issuer_user: {email, …}}`: the user the email finds, and its fields.
    func issuerUser(_ value: YAMLNode) throws(ScenarioError) -> Expectation.Kind {
        guard case .mapping(let inner) = value, let email = inner["email"] else {
            throw reader.error(value, "expect.issuer_user must be a mapping with an email")
        }
        var fields = try reader.matches(value, "expect.issuer_user")
        fields["email"] = nil
        return .issuerUser(email: try reader.string(email, "expect.issuer_user.email"), fields: fields)
    }

    /// `expect: {sheet: …}`: how the last sheet ended.
    func sheetEnding(_ value: YAMLNode) throws(ScenarioError) -> SheetEnding {
        let name = try reader.string(value, "expect.sheet")
        guard let ending = SheetEnding(name: name) else {
            throw reader.error(
                value,
                "expect.sheet has no \"\(name)\"" + NearMiss.alternatives(for: name, among: SheetEnding.names)
            )
        }
        return ending
    }

    func presence(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> Bool {
        if let value = node.bool { return value }
        return try reader.named(node, context, Presence.self) == .present
    }

    func requests(_ node: YAMLNode) throws(ScenarioError) -> RequestExpectation {
        let mapping = try reader.mapping(
            node, "expect.requests", allowed: StepCatalog.definitions["requests"]?.keys ?? [])
        var expectation = RequestExpectation()
        expectation.path = try reader.optionalString(mapping, "path", "expect.requests")
        if let node = mapping["endpoint"] {
            let role = try reader.named(node, "expect.requests.endpoint", EndpointRole.self)
            guard expectation.path == nil else { throw reader.error(node, "give path or endpoint, not both") }
            expectation.endpoint = role
        }
        expectation.method = try reader.optionalString(mapping, "method", "expect.requests")?.uppercased()
        if let node = mapping["params"] {
            expectation.parameters = try reader.matches(node, "expect.requests.params")
        }
        if let node = mapping["headers"] {
            expectation.headers = try reader.matches(node, "expect.requests.headers")
        }
        if let node = mapping["count"] {
            expectation.count = try reader.int(node, "expect.requests.count", range: 0...1_000_000)
        }
        if let node = mapping["at_least"] {
            expectation.atLeast = try reader.int(node, "expect.requests.at_least", range: 0...1_000_000)
        }
        return expectation
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

// MARK: Encoding

extension ScenarioEncoder {
    /// A `parallel` block: each branch a step, or a list of steps.
    static func parallel(_ branches: [Step]) -> JSONValue {
        [
            "parallel": .array(
                branches.map { branch in
                    if case .flow(.include(_, let inner)) = branch.action { return .array(steps(inner)) }
                    return step(branch)
                })
        ]
    }

    static func expect(_ expectations: [Expectation]) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        var requests: [JSONValue] = []
        for expectation in expectations {
            switch expectation.kind {
            case .session(let present, let app):
                members["session"] = present ? "present" : "absent"
                noteApp(app, &members)
            case .claims(let claims, let app):
                members["claims"] = .object(claims.mapValues(match))
                noteApp(app, &members)
            case .refreshToken(let present, let app):
                members["refresh_token"] = present ? "present" : "absent"
                noteApp(app, &members)
            case .tokenType(let type, let app):
                members["token_type"] = .string(type)
                noteApp(app, &members)
            case .scopes(let scopes, let app):
                members["scopes"] = .array(scopes.map(JSONValue.string))
                noteApp(app, &members)
            case .lastError(let code):
                members["error"] = code.map { .string($0.rawValue) } ?? .null
            case .requests(let request):
                requests.append(self.request(request))
            case .keychainItems(let count):
                members["keychain"] = .int(Int64(count))
            case .browserCookies(let count, let name):
                var cookies: [String: JSONValue] = [:]
                if let count { cookies["count"] = .int(Int64(count)) }
                if let name { cookies["name"] = .string(name) }
                members["cookies"] = .object(cookies)
            case .issuerUser(let email, let fields):
                var user = fields.mapValues(match)
                user["email"] = .string(email)
                members["issuer_user"] = .object(user)
            case .appPhase(let phase, let app):
                members["app_phase"] = .string(phase.rawValue)
                noteApp(app, &members)
            case .issuerRefreshTokens(let verdict):
                members["issuer_refresh_tokens"] = .string(verdict.rawValue)
            case .appleCredential(let state, let app):
                members["apple_credential"] = .string(state.rawValue)
                noteApp(app, &members)
            case .signedOutAtIssuer(let ended, let app):
                members["signed_out_at_issuer"] = .bool(ended)
                noteApp(app, &members)
            case .loginForms(let count, let app):
                members["login_forms"] = .int(Int64(count))
                noteApp(app, &members)
            case .sheet(let ending, let app):
                members["sheet"] = .string(ending.name)
                noteApp(app, &members)
            }
        }
        if !requests.isEmpty { members["requests"] = .array(requests) }
        return members
    }

    static func noteApp(_ app: String?, _ members: inout [String: JSONValue]) {
        if let app { members["app"] = .string(app) }
    }

    static func request(_ request: RequestExpectation) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let path = request.path { members["path"] = .string(path) }
        if let endpoint = request.endpoint { members["endpoint"] = .string(endpoint.rawValue) }
        if let method = request.method { members["method"] = .string(method) }
        if !request.parameters.isEmpty { members["params"] = .object(request.parameters.mapValues(match)) }
        if !request.headers.isEmpty { members["headers"] = .object(request.headers.mapValues(match)) }
        if let count = request.count { members["count"] = .int(Int64(count)) }
        if let atLeast = request.atLeast { members["at_least"] = .int(Int64(atLeast)) }
        return .object(members)
    }

    static func match(_ match: ClaimMatch) -> JSONValue {
        switch match {
        case .equals(let value): value
        case .present: "present"
        case .absent: "absent"
        }
    }
}
