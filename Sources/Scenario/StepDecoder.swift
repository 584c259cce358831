import Device
import Issuer
import JOSE
import JSON
import OAuthCore
import SignInSDK
import WebAuthSession
import YAML

/// Steps: a bare name (`launch`) or a mapping with one key, the step's name, whose value holds
/// its arguments (`signIn: {username: bob@example.com}`).
struct StepDecoder {
    let reader: ScenarioReader
    /// The apps of the device; nil when the header's apps have a problem, and then unchecked.
    let appIDs: [String]?
    let env: [String: String]
    /// The files being included, outermost first, to refuse include cycles.
    let includeStack: [String]

    func steps(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> [Step] {
        guard case .sequence(let sequence) = node else {
            throw reader.error(node, "\(context) must be a list of steps, found \(node.typeDescription)")
        }
        // A step with a problem is recorded and left out; the next is checked all the same.
        var steps: [Step] = []
        for item in sequence.items {
            if let step = reader.problems.attempt({ () throws(ScenarioError) in try step(item) }) ?? nil {
                steps.append(step)
            }
        }
        return steps
    }

    /// The branches of a `parallel` block: each a step, or a list of steps run in order.
    private func branches(_ node: YAMLNode) throws(ScenarioError) -> [Step] {
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
                        .include(file: reader.file, steps: inner), name: "sequence",
                        location: reader.location(item)))
            } else if let step = reader.problems.attempt({ () throws(ScenarioError) in try step(item) })
                ?? nil
            {
                branches.append(step)
            }
        }
        return branches
    }

    /// One step; nil for a `runFlow` whose `when` is false.
    func step(_ node: YAMLNode) throws(ScenarioError) -> Step? {
        let name: String
        let arguments: YAMLNode?
        let nameNode: YAMLNode
        switch node {
        case .scalar:
            name = try reader.string(node, "a step")
            arguments = nil
            nameNode = node
        case .mapping(let mapping):
            guard mapping.pairs.count == 1, let pair = mapping.pairs.first else {
                throw reader.error(
                    node,
                    "a step is a mapping with exactly one key, the step's name; found \(mapping.pairs.count) keys"
                )
            }
            name = try reader.string(pair.key, "a step name")
            arguments = pair.value.isNull ? nil : pair.value
            nameNode = pair.key
        case .sequence:
            throw reader.error(node, "a step must be a name or a mapping, found a sequence")
        }
        let location = reader.location(nameNode)
        guard let action = try action(name, arguments, at: nameNode) else { return nil }
        return Step(action, name: name, location: location)
    }

    private func action(_ name: String, _ arguments: YAMLNode?, at node: YAMLNode) throws(ScenarioError)
        -> StepAction?
    {
        guard let kind = StepKind(name: name) else {
            throw reader.error(
                node,
                "unknown step \"\(name)\"" + NearMiss.alternatives(for: name, among: ScenarioVocabulary.steps)
            )
        }
        switch kind {
        case .app(let action):
            let mapping = try optionalMapping(arguments, name, allowed: kind.keys())
            return .app(action, app: try app(mapping, name))
        case .device(let action):
            if let arguments { throw reader.error(arguments, "\(name) takes no arguments") }
            return .device(action)
        case .sdk(let step):
            return try sdk(step, arguments)
        case .world(let step):
            return try world(step, arguments, at: node)
        case .flow(let step):
            return try flow(step, arguments, at: node)
        }
    }

    private func world(_ step: WorldStep, _ arguments: YAMLNode?, at node: YAMLNode) throws(ScenarioError)
        -> StepAction
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

    private func flow(_ step: FlowStep, _ arguments: YAMLNode?, at node: YAMLNode) throws(ScenarioError)
        -> StepAction?
    {
        switch step {
        case .parallel:
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
        case .runFlow:
            guard let arguments else { throw reader.error(node, "runFlow needs a file") }
            return try include(arguments)
        case .expect:
            guard let arguments else { throw reader.error(node, "expect needs at least one check") }
            return .expect(try expectations(arguments))
        case .wait:
            guard let arguments else { throw reader.error(node, "wait needs a condition: sheet or requests") }
            return .wait(try waitCondition(arguments))
        }
    }

    /// `appleCredential: {state, team}`: `team` only with `transferred`.
    private func appleCredentialChange(_ mapping: YAMLMapping, at node: YAMLNode) throws(ScenarioError)
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

    /// One of Apple's credential state names.
    private func appleCredentialState(_ node: YAMLNode, _ context: String) throws(ScenarioError)
        -> AppleCredentialStateName
    {
        let name = try reader.string(node, context)
        guard let state = AppleCredentialStateName(rawValue: name) else {
            let names = AppleCredentialStateName.allCases.map(\.rawValue).joined(separator: ", ")
            throw reader.error(node, "\(context) must be one of \(names), found \(name)")
        }
        return state
    }

    private func optionalMapping(_ node: YAMLNode?, _ context: String, allowed: [String])
        throws(ScenarioError)
        -> YAMLMapping?
    {
        guard let node else { return nil }
        return try reader.mapping(node, context, allowed: allowed)
    }

    private func app(_ mapping: YAMLMapping?, _ context: String) throws(ScenarioError) -> String? {
        guard let node = mapping?["app"] else { return nil }
        let id = try reader.string(node, "\(context).app")
        guard let appIDs, !appIDs.contains(id) else { return id }
        throw reader.error(
            node,
            "no app \(id) on the device" + NearMiss.alternatives(for: id, among: appIDs, listing: "apps"))
    }

    // MARK: SDK calls

    private func sdk(_ step: SDKStep, _ arguments: YAMLNode?) throws(ScenarioError) -> StepAction {
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
                scopes = try reader.strings(node, "scopes")
                for scope in scopes ?? [] where scope != "email" && scope != "name" {
                    throw reader.error(node, "signInWithApple scopes are email and name, found \(scope)")
                }
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

    /// `error: session_expired`, or several (`[none, session_expired]`), each `none` or an SDK
    /// error code.
    private func outcomes(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> [CallOutcome] {
        let items: [YAMLNode]
        if case .sequence(let sequence) = node { items = sequence.items } else { items = [node] }
        var outcomes: [CallOutcome] = []
        for item in items {
            for name in try reader.strings(item, context) {
                guard let outcome = CallOutcome(name: name) else {
                    throw reader.error(
                        item,
                        "\(context) has no \"\(name)\""
                            + NearMiss.alternatives(
                                for: name, among: CallOutcome.names,
                                listing: "expected none or an SDK error code"))
                }
                outcomes.append(outcome)
            }
        }
        guard !outcomes.isEmpty else { throw reader.error(node, "\(context) is empty") }
        return outcomes
    }

    private func signIn(_ mapping: YAMLMapping?) throws(ScenarioError) -> SDKCall {
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
            prompt = try reader.optionalString(mapping, "prompt", "signIn")
            if let node = mapping["scopes"] { scopes = try reader.strings(node, "signIn.scopes") }
            loginHint = try reader.optionalString(mapping, "login_hint", "signIn")
            if let node = mapping["max_age"] {
                maxAge = try reader.int(node, "signIn.max_age", range: 0...Int(Int32.max))
            }
        }
        return .signIn(user, prompt: prompt, scopes: scopes, loginHint: loginHint, maxAge: maxAge)
    }

    /// `retry: [{password: …}, …]`: the attempts after a refused one.
    private func loginAttempts(_ node: YAMLNode) throws(ScenarioError) -> [LoginAttempt] {
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

    // MARK: Device, issuer

    private func network(_ node: YAMLNode) throws(ScenarioError) -> NetworkChange {
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
    private func armed(
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

    private func issuerAction(_ node: YAMLNode) throws(ScenarioError) -> IssuerAction {
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

    private func waitCondition(_ node: YAMLNode) throws(ScenarioError) -> WaitCondition {
        let wait = StepKind.flow(.wait)
        let mapping = try reader.mapping(node, "wait", allowed: wait.keys())
        let app = try app(mapping, "wait")
        switch (mapping["sheet"], mapping["requests"]) {
        case (let sheet?, nil):
            let state = try reader.string(sheet, "wait.sheet")
            guard state == "presented" || state == "closed" else {
                throw reader.error(sheet, "wait.sheet must be presented or closed, found \(state)")
            }
            return .sheet(presented: state == "presented", app: app)
        case (nil, let requests?):
            let inner = try reader.mapping(requests, "wait.requests", allowed: wait.keys("requests"))
            let count = try inner["count"].map { (node: YAMLNode) throws(ScenarioError) in
                try reader.int(node, "wait.requests.count", range: 1...100_000)
            }
            return .requests(
                path: try reader.optionalString(inner, "path", "wait.requests"), count: count ?? 1)
        default:
            throw reader.error(node, "wait takes one condition: sheet or requests")
        }
    }

    // MARK: runFlow

    private func include(_ node: YAMLNode) throws(ScenarioError) -> StepAction? {
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
    private func condition(_ node: YAMLNode) throws(ScenarioError) -> Bool {
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

    // MARK: expect

    private func expectations(_ node: YAMLNode) throws(ScenarioError) -> [Expectation] {
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
    private func expectations(_ key: String, _ value: YAMLNode, at location: SourceLocation, app: String?)
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
        case .error:
            let given = value.isNull ? [.success] : try outcomes(value, "expect.error")
            guard given.count == 1, let outcome = given.first else {
                throw reader.error(value, "expect.error takes one code (or none)")
            }
            if case .failure(let code) = outcome { kind = .lastError(code) } else { kind = .lastError(nil) }
        case .keychain:
            if case .mapping = value {
                let inner = try reader.mapping(value, "expect.keychain", allowed: expect.keys("keychain"))
                guard let items = inner["items"] else {
                    throw reader.error(value, "expect.keychain needs items")
                }
                kind = .keychainItems(try reader.int(items, "expect.keychain.items", range: 0...100_000))
            } else {
                kind = .keychainItems(try reader.int(value, "expect.keychain", range: 0...100_000))
            }
        case .cookies:
            let inner = try reader.mapping(value, "expect.cookies", allowed: expect.keys("cookies"))
            kind = .browserCookies(
                count: try inner["count"].map { (n: YAMLNode) throws(ScenarioError) in
                    try reader.int(n, "expect.cookies.count", range: 0...10_000)
                },
                named: try reader.optionalString(inner, "name", "expect.cookies"))
        case .issuer_user:
            guard case .mapping(let inner) = value, let email = inner["email"] else {
                throw reader.error(value, "expect.issuer_user must be a mapping with an email")
            }
            var fields = try reader.matches(value, "expect.issuer_user")
            fields["email"] = nil
            kind = .issuerUser(
                email: try reader.string(email, "expect.issuer_user.email"), fields: fields)
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

    private func presence(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> Bool {
        if let value = node.bool { return value }
        switch try reader.string(node, context) {
        case "present": return true
        case "absent": return false
        default: throw reader.error(node, "\(context) must be present or absent")
        }
    }

    private func requests(_ node: YAMLNode) throws(ScenarioError) -> RequestExpectation {
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
