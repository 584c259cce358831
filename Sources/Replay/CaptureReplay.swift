import HTTPClient
import HTTPCore
public import Recordings
import Scenario
public import ScenarioRunner
import SignInSDK
import Simulator

/// Replays a capture from launch against the simulated SDK: the story the capture tells (its
/// recorded steps, or what its traffic shows) is played by a simulated phone whose app and
/// browser sheets are answered from the capture (`ReplayServer`), at the recorded times; the
/// report lays the recorded exchanges beside what the replayed app did with them.
public enum CaptureReplay {
    public struct Options: Sendable {
        /// The SDK behaviour profile of every app, by name; nil keeps the profile the capture's
        /// run names (a signinsim capture), else `default`.
        public var profile: String?
        public var mode: ReplayMode = .strict
        /// Where `new-episodes` sends requests the capture lacks.
        public var newEpisodes: NewEpisodesTarget = .embedded
        /// Which parameters decide a match.
        public var matching = ReplayMatching()
        /// Read the story from the traffic even when the capture records its steps.
        public var infersStory = false
        /// The seed of the replay's world and keys.
        public var seed: UInt64 = 0
        /// The capture's name in the report and in step locations.
        public var file = "capture.har"
        /// The engine of the sheets (`requested`, `--browser`, forces one; nil plays each in the
        /// engine that recorded it) and the WebKit engine for sheets that run in WebKit
        /// (`needsWebKit(_:options:)` tells whether a replay needs one).
        public var browsers = BrowserSelection()

        public init() {}
    }

    /// Why a capture cannot be replayed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Longest a replay may run, in seconds of real time, whatever the capture's length.
    static let timeLimitSeconds: Double = 600

    public static func run(_ capture: HARCapture, options: Options = Options()) async throws(Failure)
        -> ReplayReport
    {
        try await play(CaptureAnalysis(capture), options: options).report
    }

    /// Whether replaying `capture` with `options` shows a sheet in WebKit: `--browser webkit`, or
    /// a capture whose sheets ran in WebKit (its browser entries' `_engine`, or the recorded
    /// scenario's `browser`) without `--browser lite`. A caller locates a `WebKitEngine` for
    /// `options.browsers` only then.
    public static func needsWebKit(_ capture: HARCapture, options: Options = Options()) -> Bool {
        if let requested = options.browsers.requested { return requested == .webkit }
        // Most captures name no WebKit anywhere: they need no analysis (a large one takes a while).
        let header = capture.run?["scenario"]
        let headerNames =
            header?["browser"]?.stringValue == BrowserEngine.webkit.rawValue
            || (header?["apps"]?.arrayValue ?? []).contains {
                $0["browser"]?.stringValue == BrowserEngine.webkit.rawValue
            }
        guard headerNames || capture.exchanges.contains(where: { $0.engine == .webkit }) else { return false }
        let analysis = CaptureAnalysis(capture)
        guard
            var story = try? ReplayStory.read(
                analysis, file: options.file, profile: nil, inferring: options.infersStory)
        else { return analysis.sheetEngine() == .webkit }
        story.runSheets(analysis, requested: nil)
        return story.usesWebKit
    }

    /// A replay's story, what the run gave, and its report.
    struct Played {
        var story: ReplayStory
        var outcome: ScenarioRunner.Outcome
        var report: ReplayReport
        /// Every request the replayed phone sent, as the replay server logged it.
        var served: [ReplayServer.Served]
    }

    static func play(_ analysis: CaptureAnalysis, options: Options) async throws(Failure) -> Played {
        let capture = analysis.capture
        guard analysis.hasOAuthTraffic else {
            throw Failure(
                description:
                    "the capture holds no OAuth or OpenID Connect traffic: no discovery, authorization, token, "
                    + "key set, userinfo or end-session request among its \(capture.exchanges.count) entries")
        }
        if let profile = options.profile {
            do throws(SignInError) {
                _ = try BehaviorProfile(named: profile)
            } catch {
                throw Failure(description: error.message)
            }
        }
        var story = try ReplayStory.read(
            analysis, file: options.file, profile: options.profile, inferring: options.infersStory)
        story.runSheets(analysis, requested: options.browsers.requested)
        let keys = ReplayKeys(analysis, seed: options.seed)
        // The audit of the recorded tokens needs nothing from the replay: it runs beside it,
        // on the other core (a tenth of a 10,000-refresh replay, `scripts/bench replay`).
        let audit = Task.detached { TokenAudit.audit(analysis) }
        var fallback: (any HTTPTransport)?
        var embedded: SimulationWorld?
        if options.mode == .newEpisodes {
            let target: String
            switch options.newEpisodes {
            case .embedded:
                do {
                    let world = try await SimulationWorld.embedded(
                        tenant: NewEpisodesTarget.tenant(for: analysis), seed: options.seed,
                        epoch: story.epochSeconds)
                    embedded = world
                    target = world.identity?.issuerURL ?? ""
                } catch {
                    throw Failure(
                        description: "the embedded issuer for new episodes did not start: \(error.message)")
                }
            case .issuer(let url):
                guard URLParts(url).map({ $0.scheme == "http" || $0.scheme == "https" }) == true else {
                    throw Failure(description: "\(url) is not an http(s) URL to send new episodes to")
                }
                target = url
            }
            fallback = RoleMappingTransport(analysis: analysis, targetIssuer: target)
        }
        let server = ReplayServer(
            analysis: analysis, mode: options.mode, matching: options.matching, keys: keys,
            fallback: fallback,
            issuerURL: story.issuerURL, keepsRecordedState: story.callbacksKeepingRecordedState)
        let target = ReplayTarget(
            network: server, apple: server.appleSide, issuerURL: story.issuerURL, appleURL: story.appleURL,
            epochSeconds: story.epochSeconds,
            startingSessions: story.startingSession.flatMap { session in
                story.scenario.apps.first.map { [$0.bundleID: session] }
            } ?? [:],
            callFinished: { server.callFinished($0) })
        let outcome = await ScenarioRunner.run(
            story.scenario, seed: options.seed, timeLimitSeconds: timeLimitSeconds, replay: target,
            browsers: BrowserSelection(
                requested: options.browsers.requested ?? ReplayStory.defaultEngine,
                webKit: options.browsers.webKit))
        await embedded?.shutdown()
        if story.scenario.steps.isEmpty || outcome.recording == nil {
            throw Failure(
                description:
                    "the replay could not run: \(outcome.result.failure?.message ?? "no steps to play")")
        }
        let report = ReplayReport(
            analysis: analysis, story: story, server: server, outcome: outcome,
            audit: await audit.value,
            options: options)
        return Played(story: story, outcome: outcome, report: report, served: server.served)
    }
}
