import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
public import Recordings
public import Scenario
public import ScenarioRunner
import SignInSDK
import YAML

/// Derives a scenario from a capture (`signinsim import-har`) that ends as the capture ends,
/// against the embedded issuer.
///
/// The client's side is the replay's story (the steps a signinsim run recorded, or the ones
/// read from another tool's traffic) with each SDK call expecting the outcome the replayed SDK
/// had with the recorded answers, and the SDK profile the capture shows (`ClientBehavior`)
/// unless one is given. The issuer's side is what the capture shows of it (`IssuerBehavior`):
/// a tenant and faults armed before the steps that met them. The person signs in with what
/// they typed at the recorded issuer (the same placeholder where the capture hides the
/// password), as a user the tenant holds with the claims the recorded issuer gave.
///
/// The derived scenario is then run: an answer the embedded issuer gives otherwise than the
/// recorded one (an error it has no model of) is armed as that answer (`oauth-error`) and the
/// scenario run again. What still differs is said, by entry, rather than hidden; the scenario's
/// description says which capture and entries it came from and what was canned.
public enum ScenarioDerivation {
    public struct Options: Sendable {
        /// The scenario's name; default "Reproduction of FILE".
        public var name: String?
        /// The SDK profile of every app; nil: the capture's run's, or the one its traffic shows.
        public var profile: String?
        /// The capture's name, for the description and step locations.
        public var file = "capture.har"
        public var seed: UInt64 = 0
        /// Run the derived scenario and can what the embedded issuer answers otherwise.
        public var checks = true
        /// The sheets' engine, as for a replay (`CaptureReplay.Options.browsers`): `requested`
        /// forces one, else each runs in the engine that recorded it; the derived scenario
        /// names the engine its sheets ran in, and its check runs with this WebKit engine.
        public var browsers = BrowserSelection()

        public init() {}
    }

    /// A derived scenario and what deriving it found.
    public struct Derived: Sendable {
        public var yaml: String
        public var scenario: Scenario
        /// Entries (numbered from 1) the scenario does not reproduce, and why.
        public var notExpressed: [String]
        /// Whether the scenario passed against the embedded issuer (nil when not run).
        public var passed: Bool?
    }

    /// Rounds of canning answers before giving up.
    static let checkRounds = 3

    public static func derive(_ capture: HARCapture, options: Options = Options()) async throws(CaptureReplay
        .Failure)
        -> Derived
    {
        let analysis = CaptureAnalysis(capture)
        var replay = CaptureReplay.Options()
        replay.file = options.file
        replay.seed = options.seed
        replay.browsers = options.browsers
        let behavior = ClientBehavior(analysis)
        let recordsSteps = capture.run != nil && capture.pages.contains { $0.step != nil }
        replay.profile = options.profile ?? (recordsSteps ? nil : behavior.profile.description)
        let played = try await CaptureReplay.play(analysis, options: replay)
        var derivation = Derivation(
            analysis: analysis, played: played, file: options.file,
            profileReason: options.profile != nil || recordsSteps ? nil : behavior.findings)
        var scenario = try derivation.scenario(
            name: options.name ?? "Reproduction of \(fileName(options.file))")
        var yaml = ScenarioYAML.render(ScenarioEncoder.document(scenario))
        guard options.checks else {
            return Derived(yaml: yaml, scenario: scenario, notExpressed: derivation.notExpressed, passed: nil)
        }
        var passed = false
        for round in 1...checkRounds {
            let parsed = try load(yaml, name: options.file)
            let outcome = await ScenarioRunner.run(parsed, seed: options.seed, browsers: options.browsers)
            passed = outcome.result.status == .passed
            let canned = derivation.can(outcome)
            if (passed && canned == 0) || round == checkRounds {
                if !passed {
                    derivation.notExpressed.append(
                        "the derived scenario does not pass against the embedded issuer: "
                            + (outcome.result.failure.map {
                                "\($0.step) (line \($0.location.line)): \($0.message)"
                            }
                                ?? "\(outcome.result.status.rawValue)"))
                }
                break
            }
            if canned == 0 && !passed { continue }
            scenario = try derivation.scenario(name: scenario.name)
            yaml = ScenarioYAML.render(ScenarioEncoder.document(scenario))
        }
        scenario = try derivation.scenario(name: scenario.name)
        yaml = ScenarioYAML.render(ScenarioEncoder.document(scenario))
        return Derived(
            yaml: yaml, scenario: try load(yaml, name: options.file), notExpressed: derivation.notExpressed,
            passed: passed)
    }

    /// The derived YAML read back as a scenario file, so that what is checked is what is printed.
    static func load(_ yaml: String, name: String) throws(CaptureReplay.Failure) -> Scenario {
        do {
            return try ScenarioLoader.parse(
                Array(yaml.utf8), file: fileName(name) + ".yaml", substitutes: false,
                tenantCheck: TenantLoader.check)
        } catch {
            throw CaptureReplay.Failure(description: "the derived scenario does not read back: \(error)")
        }
    }

    static func fileName(_ path: String) -> String {
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if name.hasSuffix(".har") { name.removeLast(4) }
        return name
    }
}

/// The state of one derivation: the story turned into steps, the issuer's behaviour, and the
/// answers canned so far.
private struct Derivation {
    let analysis: CaptureAnalysis
    let played: CaptureReplay.Played
    let file: String
    let profileReason: [String]?
    var notExpressed: [String] = []
    /// Answers armed as recorded, before story steps (by number).
    var canned: [Int: [FaultSetup]] = [:]
    var cannedNotes: [String] = []
    /// The derived step numbers of each story step, from the last build.
    private var storyStepOf: [Int: Int] = [:]

    init(analysis: CaptureAnalysis, played: CaptureReplay.Played, file: String, profileReason: [String]?) {
        self.analysis = analysis
        self.played = played
        self.file = file
        self.profileReason = profileReason
    }

    var story: ReplayStory { played.story }

    // MARK: Building

    mutating func scenario(name: String) throws(CaptureReplay.Failure) -> Scenario {
        var apps = story.scenario.apps
        for index in apps.indices {
            // The embedded issuer's login form has its own field names.
            apps[index].usernameField = "username"
            apps[index].passwordField = "password"
        }
        let logins = self.logins()
        // The client's steps first: the users are whoever those steps sign in as.
        var clientSteps: [(number: Int, step: Step)] = []
        let records = Dictionary(
            (played.outcome.recording?.steps ?? []).map { ($0.number, $0.record) },
            uniquingKeysWith: { first, _ in first })
        for (position, step) in story.scenario.steps.enumerated() {
            let record = records[position + 1]
            if let derived = transform(step, record: record, logins: logins) {
                clientSteps.append((position + 1, derived))
            }
        }
        let (users, typing) = self.users(clientSteps, apps: apps, logins: logins)
        let typed = Self.typing(clientSteps.map(\.step), typing)
        clientSteps = zip(clientSteps, typed).map { ($0.number, $1) }
        let issuer = IssuerBehavior(analysis, story: story, apps: apps, users: users.map(\.json))
        var steps: [Step] = []
        storyStepOf = [:]
        var last = 0
        for (number, step) in clientSteps {
            // Issuer steps armed before story steps that were left out go before the next one.
            for armed in (last + 1)...number {
                steps += issuer.before[armed] ?? []
                for setup in canned[armed] ?? [] {
                    steps.append(
                        Step(.world(.issuer(.fault(setup))), name: "issuer", location: step.location))
                }
            }
            last = number
            steps.append(step)
            storyStepOf[steps.count] = number
        }
        let recorded = played.report.signedInAtEndRecorded ?? played.report.signedInAtEndReplayed
        if let recorded {
            let location = SourceLocation(file: file, line: 1, column: 1)
            steps.append(
                Step(
                    .flow(.expect([Expectation(.session(present: recorded, app: nil), location: location)])),
                    name: "expect", location: location))
        }
        var scenario = Scenario(
            name: name, description: description(issuer: issuer, logins: logins),
            tags: ["imported"], location: SourceLocation(file: file, line: 1, column: 1))
        // The engine the sheets ran in (`ReplayStory.runSheets`): the scenario's, when every
        // app's is the same.
        let engines = Set(apps.map(\.browser))
        if engines.count == 1, let engine = engines.first ?? nil {
            scenario.browser = engine
            for index in apps.indices { apps[index].browser = nil }
        }
        scenario.apps = apps
        scenario.device = story.scenario.device
        scenario.issuer = IssuerTarget.embedded(tenant: try tenantOverride(issuer.tenant))
        scenario.steps = steps
        return scenario
    }

    /// The tenant document as the scenario's `issuer.tenant`.
    private func tenantOverride(_ tenant: [String: JSONValue]) throws(CaptureReplay.Failure) -> TenantOverride
    {
        do {
            guard let node = try YAMLParser.parse(JSONValue.object(tenant).serialized(), fileName: file)
            else {
                throw CaptureReplay.Failure(description: "the derived tenant is empty")
            }
            return TenantOverride(node: node, file: file)
        } catch let error as CaptureReplay.Failure {
            throw error
        } catch {
            throw CaptureReplay.Failure(description: "the derived tenant does not read: \(error)")
        }
    }

    /// What each username typed at the recorded issuer becomes at the embedded one, whose
    /// login is an email: itself when it is one, else the email the recorded ID token gave.
    private func logins() -> [String: String] {
        var logins: [String: String] = [:]
        for flow in analysis.signIns {
            var email: String?
            if let exchange = flow.codeExchange,
                let token = ReplayKeys.idToken(in: analysis.capture.exchanges[exchange])
            {
                email = (try? JWT.decodeUnverified(token))?.claims["email"]?.stringValue
            }
            for attempt in flow.loginAttempts {
                guard let username = attempt.usernameField.flatMap({ attempt.fields[$0] }),
                    !username.contains("@")
                else { continue }
                logins[username] = logins[username] ?? email ?? "\(username)@example.invalid"
            }
        }
        return logins
    }

    /// Someone who signs in at the embedded issuer as the recorded person did.
    struct User {
        var login: String
        var json: [String: JSONValue]
    }

    /// A user for each sign-in the capture shows accepted, and what each `signIn` call of the
    /// steps types (in the order the steps list them; nil for one without a login form): the
    /// username and password of each recorded attempt (placeholders where the capture hides
    /// them), so that the person types what the recorded one did and the user's password is
    /// the accepted attempt's. The user has the claims the recorded issuer gave (`sub` as the
    /// user id).
    private func users(_ steps: [(number: Int, step: Step)], apps: [AppSetup], logins: [String: String])
        -> (users: [User], typing: [WebUserSetup?])
    {
        // Each call, with the web sign-ins of the story step it is part of.
        var calls: [(client: String, user: WebUserSetup, step: Int)] = []
        func collect(_ step: Step, in number: Int) {
            switch step.action {
            case .sdk(.signIn(let arguments), let app, _):
                let user = arguments.user
                let bundle = app ?? apps.first?.bundleID
                calls.append((apps.first { $0.bundleID == bundle }?.clientID ?? "", user, number))
            case .flow(.parallel(let inner)), .flow(.include(_, let inner)):
                for step in inner { collect(step, in: number) }
            default: break
            }
        }
        for (number, step) in steps { collect(step, in: number) }
        var flowsOfStep: [Int: [CaptureAnalysis.SignInFlow]] = [:]
        for (number, entries) in story.stepEntries {
            flowsOfStep[number] = analysis.signIns.filter { entries.contains($0.authorization) }
        }
        var users: [String: User] = [:]
        var order: [String] = []
        var typing: [WebUserSetup?] = []
        for call in calls {
            guard
                let position = flowsOfStep[call.step]?.firstIndex(where: {
                    $0.clientID == call.client || $0.clientID == nil
                }), let flow = flowsOfStep[call.step]?.remove(at: position)
            else {
                typing.append(nil)
                continue
            }
            func typed(_ attempt: CaptureAnalysis.LoginAttemptRecord) -> (String?, String?) {
                let username = attempt.usernameField.flatMap { attempt.fields[$0] }
                return (
                    username.map { logins[$0] ?? $0 }, attempt.passwordField.flatMap { attempt.fields[$0] }
                )
            }
            guard let first = flow.loginAttempts.first else {
                typing.append(nil)
                continue
            }
            var user = call.user
            let (username, password) = typed(first)
            user.username = username ?? user.username
            user.password = password ?? user.password
            user.retries = flow.loginAttempts.dropFirst().map { attempt in
                let (username, password) = typed(attempt)
                return LoginAttempt(username: username, password: password)
            }
            typing.append(user)
            guard let accepted = flow.loginAttempts.firstIndex(where: { !$0.rejected }) else { continue }
            var login = user.username
            var secret = user.password
            for retry in user.retries.prefix(accepted) {
                login = retry.username ?? login
                secret = retry.password ?? secret
            }
            var json: [String: JSONValue] = ["email": .string(login), "password": .string(secret)]
            if let exchange = flow.codeExchange,
                let token = ReplayKeys.idToken(in: analysis.capture.exchanges[exchange]),
                let claims = (try? JWT.decodeUnverified(token))?.claims.objectValue
            {
                if let sub = claims["sub"]?.stringValue { json["user_id"] = .string(sub) }
                for claim in ["name", "given_name", "family_name"] {
                    if let value = claims[claim]?.stringValue { json[claim] = .string(value) }
                }
                if let verified = claims["email_verified"]?.boolValue {
                    json["email_verified"] = .bool(verified)
                }
            }
            if users[login] == nil { order.append(login) }
            users[login] = User(login: login, json: json)
        }
        return (order.compactMap { users[$0] }, typing)
    }

    /// The steps with each `signIn` typing what `typing` says, in the order the steps list them.
    private static func typing(_ steps: [Step], _ typing: [WebUserSetup?]) -> [Step] {
        var remaining = typing[...]
        func rewrite(_ step: Step) -> Step {
            var step = step
            switch step.action {
            case .sdk(.signIn(var arguments), let app, let errors):
                if let typed = remaining.popFirst() ?? nil { arguments.user = typed }
                step.action = .sdk(.signIn(arguments), app: app, expectedOutcomes: errors)
            case .flow(.parallel(let inner)):
                step.action = .flow(.parallel(inner.map(rewrite)))
            case .flow(.include(let file, let inner)):
                step.action = .flow(.include(file: file, steps: inner.map(rewrite)))
            default:
                break
            }
            return step
        }
        return steps.map(rewrite)
    }

    /// A story step as the derived scenario writes it, or nil when it is left out.
    private func transform(_ step: Step, record: StepRecord?, logins: [String: String]) -> Step? {
        switch step.action {
        case .flow(.expect):
            return nil
        case .world(.issuer(.clock)):
            return step
        case .world(.issuer(.fault(let setup))) where setup.fault == .delay:
            // A run's delays are its timing: on a busy machine a slow answer says nothing of
            // whether the issuer held it, so they are kept as recorded.
            return step
        case .world(.issuer):
            // The issuer's side comes from what the capture shows of it.
            return nil
        case .sdk(let call, let app, _):
            var call = call
            if case .signIn(var arguments) = call {
                // The embedded issuer's login form has no other fields; its login is an email.
                var user = arguments.user
                user.fields = []
                user.username = logins[user.username] ?? user.username
                user.retries = user.retries.map { retry in
                    LoginAttempt(username: retry.username.map { logins[$0] ?? $0 }, password: retry.password)
                }
                arguments.user = user
                call = .signIn(arguments)
            }
            let expected = record?.callOutcome.flatMap { $0 == .success ? nil : [$0] }
            return Step(
                .sdk(call, app: app, expectedOutcomes: expected), name: step.name, location: step.location)
        case .flow(.parallel(let branches)):
            // Which call of a race gets which answer is scheduling: every call of the block
            // may end as any of the block's calls ended.
            func outcomes(_ record: StepRecord) -> [CallOutcome] {
                (record.callOutcome.map { [$0] } ?? []) + record.children.flatMap(outcomes)
            }
            let allowed = Set(record.map(outcomes) ?? []).sorted { $0.name < $1.name }
            let expected = allowed.isEmpty || allowed == [.success] ? nil : allowed
            func race(_ branch: Step) -> Step? {
                switch branch.action {
                case .sdk(let call, let app, _):
                    return Step(
                        .sdk(call, app: app, expectedOutcomes: expected), name: branch.name,
                        location: branch.location)
                case .flow(.include(let file, let inner)):
                    let steps = inner.compactMap(race)
                    return steps.isEmpty
                        ? nil
                        : Step(
                            .flow(.include(file: file, steps: steps)), name: branch.name,
                            location: branch.location)
                default:
                    return transform(branch, record: nil, logins: logins)
                }
            }
            return Step(.flow(.parallel(branches.compactMap(race))), name: step.name, location: step.location)
        case .flow(.include(let file, let inner)):
            let steps = inner.compactMap { transform($0, record: nil, logins: logins) }
            return steps.isEmpty
                ? nil
                : Step(.flow(.include(file: file, steps: steps)), name: step.name, location: step.location)
        default:
            return step
        }
    }

    private func description(issuer: IssuerBehavior, logins: [String: String]) -> String {
        let capture = analysis.capture
        var parts: [String] = []
        let entries = capture.exchanges.indices.map(capture.entryNumber(of:))
        parts.append(
            "Derived by signinsim import-har from \(file) (entries \(ReplayReport.ranges(entries))"
                + (capture.creator.map { ", written by \($0)" } ?? "") + ").")
        parts.append(
            story.source == .recordedSteps
                ? "The steps are the ones the run recorded; each SDK call expects the outcome it had there."
                : "The steps are read from the traffic; each SDK call expects the outcome the SDK had with the recorded answers."
        )
        let profile = story.scenario.apps.map(\.profile.description).joined(separator: ", ")
        if let reason = profileReason, !reason.isEmpty {
            parts.append("SDK profile \(profile): " + reason.joined(separator: "; ") + ".")
        } else {
            parts.append("SDK profile \(profile).")
        }
        if let sentence = engineSentence() { parts.append(sentence) }
        for (typed, login) in logins.sorted(by: { $0.key < $1.key }) {
            parts.append("The person signs in as \(login) (typed \(typed) at the recorded issuer).")
        }
        if !issuer.findings.isEmpty {
            parts.append("The issuer as recorded: " + issuer.findings.joined(separator: "; ") + ".")
        }
        if !cannedNotes.isEmpty {
            parts.append(
                "Answered as recorded (the embedded issuer has no model of why): "
                    + cannedNotes.joined(separator: "; ") + ".")
        }
        if !notExpressed.isEmpty {
            parts.append("Not reproduced: " + notExpressed.joined(separator: "; ") + ".")
        }
        return parts.joined(separator: " ")
    }

    /// What the description says of the sheets' engine: which one, and what named it.
    private func engineSentence() -> String? {
        let engines = Set(story.scenario.apps.compactMap(\.browser)).map(\.rawValue).sorted()
        guard !engines.isEmpty, let source = story.sheetEngineSource else { return nil }
        let why =
            switch source {
            case .requested: "as --browser asked"
            case .recordedEntries: "the engine the capture's browser entries name (_engine)"
            case .recordedScenario: "as the recorded scenario names"
            }
        return "The sheets run in \(engines.joined(separator: " and ")), \(why)."
    }

    // MARK: Checking

    /// Compares the derived run's answers with the recorded ones, step by step, and arms the
    /// recorded answer where the embedded issuer gave another error (or none). Returns how many
    /// answers were newly canned.
    mutating func can(_ outcome: ScenarioRunner.Outcome) -> Int {
        guard let recording = outcome.recording else { return 0 }
        var run = HARCapture(exchanges: outcome.exchanges)
        run.pages = recording.steps.map { CapturePage(id: $0.pageID, title: $0.step.name) }
        let derived = CaptureAnalysis(run)
        var derivedByStory: [Int: [Int]] = [:]
        for (index, exchange) in derived.capture.exchanges.enumerated() {
            guard let page = exchange.pageref, let number = Int(page.dropFirst("step-".count)),
                let storyStep = storyStepOf[number]
            else { continue }
            derivedByStory[storyStep, default: []].append(index)
        }
        let roles: Set<CaptureAnalysis.Role> = [.token, .userinfo, .revocation]
        var added = 0
        for (storyStep, entries) in story.stepEntries.sorted(by: { $0.key < $1.key }) {
            let recorded = entries.filter {
                analysis.entries[$0].sender == .app && roles.contains(analysis.entries[$0].role)
            }.sorted {
                analysis.capture.exchanges[$0].sendingMoment < analysis.capture.exchanges[$1].sendingMoment
            }
            // The answers the derived run got in this step, as a multiset: which request of a
            // race gets the refusal depends on which the issuer handled first, and the derived
            // scenario holds the first at the issuer, so the order is not the recorded one.
            var made = (derivedByStory[storyStep] ?? []).filter {
                derived.entries[$0].sender == .app && roles.contains(derived.entries[$0].role)
            }.map { derived.entries[$0].summary }
            for index in recorded {
                let summary = analysis.entries[index].summary
                guard let status = summary.status, status >= 400, status < 500,
                    let path = IssuerBehavior.embeddedPaths[analysis.entries[index].role]
                else { continue }
                if let same = made.firstIndex(where: {
                    $0.status == status && $0.oauthError == summary.oauthError
                }) {
                    made.remove(at: same)
                    continue
                }
                let setup = FaultSetup(
                    .oauthError, count: 1, path: path, status: status,
                    error: summary.oauthError ?? OAuthErrorCode.invalidRequest,
                    errorDescription: summary.oauthErrorDescription)
                if canned[storyStep]?.contains(setup) == true { continue }
                canned[storyStep, default: []].append(setup)
                cannedNotes.append("entry \(analysis.capture.entryNumber(of: index)): \(summary.phrase)")
                added += 1
            }
        }
        return added
    }
}
