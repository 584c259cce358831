import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import Recordings
import Scenario
import SignInSDK

/// What the replayed app does, as a scenario the runner plays against the capture: the world
/// (the app's client, the device) and the steps.
///
/// A capture that `signinsim run --har-dir` wrote carries its steps (one page per step, with the
/// step as the scenario file writes it and how it ended): the replay plays exactly those,
/// with the apps and the device the run had. Any other capture is read for what the app and
/// the person did (`StoryInference`): the launch, each web sign-in with what was typed and
/// pressed, each refresh (a race as a parallel block), userinfo, sign-out, Sign in with Apple,
/// and the time between them.
struct ReplayStory: Sendable {
    enum Source: Sendable {
        /// The steps a signinsim run recorded in the capture's pages.
        case recordedSteps
        /// Steps read from the traffic.
        case inferred
    }

    var source: Source
    var scenario: Scenario
    /// Per top-level step (numbered from 1): the recorded `_outcome` of a signinsim run's page.
    var recordedOutcomes: [Int: JSONValue] = [:]
    /// Per top-level step: the capture's exchanges it stands for (inferred steps), or the
    /// entries of its page (recorded steps).
    var stepEntries: [Int: [Int]] = [:]
    /// The issuer the apps are configured with: the recorded discovery URL's base.
    var issuerURL: String
    /// The recorded simulated Apple, when the capture talks to one.
    var appleURL: String?
    /// When the world's clock starts, in seconds since the Unix epoch.
    var epochSeconds: Int64
    /// What reading the story found worth saying (a relaunch inferred, a value taken as is).
    var notes: [String] = []
    /// The session the app holds when the capture begins (one that starts mid-session).
    var startingSession: Session?
    /// Redirects to the app's callback (exchange indices) whose code the recorded app never
    /// redeemed although their `state` is the one their sheet sent
    /// (`CaptureAnalysis.CallbackRefusal.causeNotShown`): the cause assumed is a state the
    /// app did not store, so the replay serves them with the recorded `state`, which the
    /// replayed app did not store either, and its SDK refuses them (`state_mismatch`).
    var callbacksKeepingRecordedState: Set<Int> = []

    /// The story of `analysis`'s capture, read from its recorded steps unless `inferring` (or
    /// there are none). `profile` replaces every app's SDK profile when given.
    static func read(
        _ analysis: CaptureAnalysis, file: String, profile: String?, inferring: Bool
    ) throws(CaptureReplay.Failure) -> ReplayStory {
        let issuer = configuredIssuer(analysis)
        let appleURL = recordedAppleURL(analysis)
        if !inferring, let recorded = try recorded(analysis, file: file, profile: profile) {
            var story = recorded
            story.issuerURL = issuer
            story.appleURL = appleURL
            return story
        }
        let behavior: BehaviorProfile
        do throws(SignInError) {
            behavior =
                try profile.map { name throws(SignInError) in try BehaviorProfile(named: name) } ?? .default
        } catch {
            throw CaptureReplay.Failure(description: error.message)
        }
        var story = StoryInference(analysis: analysis, file: file, profile: behavior).story()
        story.issuerURL = issuer
        story.appleURL = appleURL
        return story
    }

    /// Why the story's sheets run in the engine they do.
    enum SheetEngineSource: Sendable {
        /// `--browser` forced it.
        case requested
        /// The capture's browser entries name it (`_engine`).
        case recordedEntries
        /// The recorded scenario names it (its `browser`), its entries do not.
        case recordedScenario
    }

    /// Why the sheets run in the engine they do; nil when nothing names one (`lite`).
    var sheetEngineSource: SheetEngineSource?

    /// Gives each app's sheets the engine that recorded them: `requested` (`--browser`) for
    /// every app when given; else the engine the app's browser entries name (`_engine`, which
    /// signinsim writes), else the recorded scenario's own `browser`. A capture that says
    /// nothing of an engine (another tool's, an older signinsim one) leaves it to the replay's
    /// run, which is `lite` (`defaultEngine`).
    mutating func runSheets(_ analysis: CaptureAnalysis, requested: BrowserEngine?) {
        if let requested {
            for index in scenario.apps.indices { scenario.apps[index].browser = requested }
            scenario.browser = requested
            sheetEngineSource = .requested
            notes.append("the sheets run in \(requested.rawValue), as --browser asks")
            return
        }
        let only = scenario.apps.count == 1
        for index in scenario.apps.indices {
            let app = scenario.apps[index]
            if let engine = analysis.sheetEngines[app.bundleID] ?? (only ? analysis.sheetEngine() : nil) {
                scenario.apps[index].browser = engine
                sheetEngineSource = .recordedEntries
            } else if let engine = app.browser ?? scenario.browser {
                scenario.apps[index].browser = engine
                sheetEngineSource = sheetEngineSource ?? .recordedScenario
            }
        }
        if usesWebKit {
            notes.append(
                "the sheets run in webkit, the engine "
                    + (sheetEngineSource == .recordedEntries
                        ? "the capture's browser entries name (_engine)" : "the recorded scenario names"))
        }
    }

    /// Whether the story shows a sheet in WebKit.
    var usesWebKit: Bool {
        scenario.usesBrowser(.webkit, runDefault: ReplayStory.defaultEngine)
    }

    /// The engine of sheets nothing in the capture names.
    static let defaultEngine = BrowserEngine.lite

    /// The issuer URL the replayed apps are configured with, so that they ask for the recorded
    /// discovery URL: its base, else the issuer the analysis found.
    static func configuredIssuer(_ analysis: CaptureAnalysis) -> String {
        if let index = analysis.discoveryExchange {
            let url = URLParts.stripQueryAndFragment(analysis.capture.exchanges[index].url)
            for suffix in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]
            where url.hasSuffix(suffix) {
                return String(url.dropLast(suffix.count))
            }
        }
        return analysis.issuer ?? ""
    }

    /// The base URL of the simulated Apple the phone's sheet talked to (`…/_admin/authorize`).
    static func recordedAppleURL(_ analysis: CaptureAnalysis) -> String? {
        for (index, entry) in analysis.entries.enumerated() where entry.role == .appleAuthorization {
            let url = URLParts.stripQueryAndFragment(analysis.capture.exchanges[index].url)
            if let range = url.range(of: "/_admin/", options: .backwards) {
                return String(url[..<range.lowerBound])
            }
        }
        return nil
    }

    /// The story a signinsim run wrote into the capture, or nil when it has none.
    private static func recorded(_ analysis: CaptureAnalysis, file: String, profile: String?)
        throws(CaptureReplay.Failure) -> ReplayStory?
    {
        let capture = analysis.capture
        guard let run = capture.run, case .object(var header)? = run["scenario"], !capture.pages.isEmpty
        else { return nil }
        var steps: [JSONValue] = []
        for page in capture.pages {
            guard let step = page.step else { return nil }
            steps.append(promptAsRecorded(step, page: page.id, analysis: analysis))
        }
        // The replay target decides the issuer; the recorded tenant was the issuer's side.
        header["issuer"] = nil
        if case .array(let apps)? = header["apps"] {
            header["apps"] = .array(apps.map { replayable($0, analysis: analysis, profile: profile) })
        }
        header["steps"] = .array(steps)
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.parse(
                JSONValue.object(header).serialized(), file: file + " (recorded steps)", substitutes: false,
                tenantCheck: TenantLoader.check)
        } catch {
            throw CaptureReplay.Failure(
                description: "the steps the capture records cannot be read: \(error.message)")
        }
        var story = ReplayStory(
            source: .recordedSteps, scenario: scenario, issuerURL: "", appleURL: nil,
            epochSeconds: (capture.pages.first?.startedAtMilliseconds ?? firstMoment(analysis)) / 1000)
        for (number, page) in capture.pages.enumerated() {
            if let outcome = page.outcome { story.recordedOutcomes[number + 1] = outcome }
        }
        let pageNumbers = Dictionary(
            capture.pages.enumerated().map { ($1.id, $0 + 1) }, uniquingKeysWith: { first, _ in first })
        for (index, exchange) in capture.exchanges.enumerated() {
            if let page = exchange.pageref, let number = pageNumbers[page] {
                story.stepEntries[number, default: []].append(index)
            }
        }
        return story
    }

    /// A recorded app's settings as the replay configures them: the profile asked for, and a
    /// `private_key_jwt` key replaced by the stand-in (the capture hides the private key, and a
    /// key file is on another machine).
    private static func replayable(_ app: JSONValue, analysis: CaptureAnalysis, profile: String?) -> JSONValue
    {
        guard case .object(var members) = app else { return app }
        if let profile { members["profile"] = .string(profile) }
        if members["client_key_file"] != nil || members["client_jwk"] != nil {
            members["client_key_file"] = nil
            members["client_jwk"] = StoryInference.standInClientKey
        }
        return .object(members)
    }

    /// A recorded `signIn` step that names no `prompt` of its own, given `prompt: omit` when
    /// its authorization request carried none: the app's setting could otherwise add one (a
    /// capture made before the SDK sent `prompt=consent` for `offline_access` has none).
    private static func promptAsRecorded(_ step: JSONValue, page: String, analysis: CaptureAnalysis)
        -> JSONValue
    {
        var arguments: [String: JSONValue]
        switch step {
        case .string("signIn"): arguments = [:]
        case .object(let members) where members.count == 1:
            guard case .object(let given)? = members["signIn"] else { return step }
            arguments = given
        default: return step
        }
        guard arguments["prompt"] == nil else { return step }
        let exchanges = analysis.capture.exchanges
        let flows = analysis.signIns.filter { exchanges[$0.authorization].pageref == page }
        guard let flow = flows.first, StoryInference.promptSetting(flow) == SignInOptions.Prompt.omitKeyword
        else {
            return step
        }
        arguments["prompt"] = .string(SignInOptions.Prompt.omitKeyword)
        return ["signIn": .object(arguments)]
    }

    /// The capture's first moment, in milliseconds.
    static func firstMoment(_ analysis: CaptureAnalysis) -> Int64 {
        analysis.timeline.first.map { analysis.capture.exchanges[$0].startedAtMilliseconds } ?? 0
    }
}
