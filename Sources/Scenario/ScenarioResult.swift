public import HTTPCore
public import WorldVocabulary

/// What running one scenario gave: the values every report (console, JSON, JUnit, HAR index)
/// is written from. Pure data; durations are the only part that differs between two runs with
/// one seed.
public struct ScenarioResult: Hashable, Sendable {
    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        /// Every step ran and every expectation held.
        case passed
        /// A step failed or an expectation did not hold; `failure` says which.
        case failed
        /// Not run: its tags were filtered out, or it needs what the target cannot do.
        case skipped
        /// The run was interrupted (SIGINT) or the scenario hit its time limit.
        case interrupted
    }

    /// The scenario's `name`.
    public var name: String
    /// The file it came from, as given on the command line.
    public var file: String
    public var description: String
    public var tags: [String]
    public var status: Status
    /// Why it failed, was skipped or interrupted; nil when it passed.
    public var failure: StepFailure?
    /// Each step as it ran, in order (`parallel` blocks as one record with nested steps).
    public var steps: [StepRecord]
    /// Wall time in milliseconds (not deterministic).
    public var durationMilliseconds: Double
    /// The seed the world ran with; `nil`: fresh randomness (a run against a real issuer
    /// without `--seed`), which no later run repeats.
    public var seed: UInt64?
    /// Where the HAR of this scenario was written, when `--har-dir` was given.
    public var harPath: String?

    /// `seed 7`, or `fresh randomness (no seed)`: how a run's randomness is said in reports.
    public static func describeSeed(_ seed: UInt64?) -> String {
        seed.map { "seed \($0)" } ?? "fresh randomness (no seed)"
    }

    public init(
        name: String, file: String, description: String = "", tags: [String] = [], status: Status,
        failure: StepFailure? = nil, steps: [StepRecord] = [], durationMilliseconds: Double = 0,
        seed: UInt64? = 0, harPath: String? = nil
    ) {
        self.name = name
        self.file = file
        self.description = description
        self.tags = tags
        self.status = status
        self.failure = failure
        self.steps = steps
        self.durationMilliseconds = durationMilliseconds
        self.seed = seed
        self.harPath = harPath
    }
}

/// The step that stopped a scenario, and why, in the words a failing test uses.
public struct StepFailure: Hashable, Sendable {
    /// The step as written (`signIn`, `expect`, …).
    public var step: String
    /// Where the step is written.
    public var location: SourceLocation
    /// One sentence: what went wrong.
    public var message: String
    /// For a failed expectation: what the scenario expected and what happened.
    public var expected: String?
    public var actual: String?

    public init(
        step: String, location: SourceLocation, message: String, expected: String? = nil,
        actual: String? = nil
    ) {
        self.step = step
        self.location = location
        self.message = message
        self.expected = expected
        self.actual = actual
    }
}

/// One step as it ran.
public struct StepRecord: Hashable, Sendable {
    public enum Outcome: String, Hashable, Sendable, Codable {
        case passed
        case failed
        /// Not run: an earlier step failed, or the target cannot do it (an external issuer has
        /// no admin API), with `note` saying which.
        case skipped
    }

    public var step: String
    public var location: SourceLocation
    public var outcome: Outcome
    /// A short note: the error code an SDK call returned, why the step was skipped.
    public var note: String?
    /// The steps of a `parallel` block or a `runFlow` include.
    public var children: [StepRecord]
    public var durationMilliseconds: Double
    /// For an SDK call (and a launch, whose `configure` is one): success, the `SignInError` code
    /// it returned, or what the run found in a call that succeeded (`CallFinding`), whatever the
    /// step expected.
    public var callOutcome: CallOutcome?
    /// The pages of the web sheets the step presented, as the person went through them.
    public var sheetPages: [SheetPage] = []

    public init(
        step: String, location: SourceLocation, outcome: Outcome, note: String? = nil,
        children: [StepRecord] = [], durationMilliseconds: Double = 0, callOutcome: CallOutcome? = nil
    ) {
        self.step = step
        self.location = location
        self.outcome = outcome
        self.note = note
        self.children = children
        self.durationMilliseconds = durationMilliseconds
        self.callOutcome = callOutcome
    }
}

/// A whole run: every scenario's result, in the order the scenarios were listed (sorted by
/// file, then position in the file), whatever order they finished in.
public struct RunSummary: Hashable, Sendable {
    public var results: [ScenarioResult]
    /// True when SIGINT stopped the run before every scenario had finished.
    public var interrupted: Bool
    /// Wall time of the whole run in milliseconds.
    public var durationMilliseconds: Double
    public var seed: UInt64?
    /// `--shard-split I/N` as given, when sharding.
    public var shard: String?
    /// When sharding: every scenario the whole run selects, across its shards, in run order.
    /// Each shard's report holds it, so that `merge-reports` can tell a missing shard.
    public var selection: [ScenarioKey]?

    public init(
        results: [ScenarioResult], interrupted: Bool = false, durationMilliseconds: Double = 0,
        seed: UInt64? = nil, shard: String? = nil, selection: [ScenarioKey]? = nil
    ) {
        self.results = results
        self.interrupted = interrupted
        self.durationMilliseconds = durationMilliseconds
        self.seed = seed
        self.shard = shard
        self.selection = selection
    }

    public func count(_ status: ScenarioResult.Status) -> Int { results.count { $0.status == status } }
}

/// A scenario as reports name it: its file and its name (a file may hold several).
public struct ScenarioKey: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var name: String

    public init(file: String, name: String) {
        self.file = file
        self.name = name
    }

    public var description: String { "\(file): \(name)" }
}

extension ScenarioResult {
    public var key: ScenarioKey { ScenarioKey(file: file, name: name) }
}

/// What a scenario run recorded besides its HTTP exchanges: the world it ran in, each
/// top-level step as it ran, and how each app ended. A HAR written with it (one page per step)
/// carries enough for `replay` to re-enact the run against the recorded answers and for
/// `import-har` to rebuild its client side.
public struct RunRecording: Hashable, Sendable {
    /// The scenario as loaded (header and steps).
    public var scenario: Scenario
    /// The seed the world ran with; `nil`: fresh randomness.
    public var seed: UInt64?
    /// The top-level steps in the order they ran, `runFlow` includes inlined.
    public var steps: [RecordedStep]
    /// Per app (bundle id): whether a session was stored when the run ended; absent when it
    /// could not be read (a locked keychain).
    public var signedInAtEnd: [String: Bool]

    public init(scenario: Scenario, seed: UInt64?, steps: [RecordedStep], signedInAtEnd: [String: Bool]) {
        self.scenario = scenario
        self.seed = seed
        self.steps = steps
        self.signedInAtEnd = signedInAtEnd
    }
}

/// One top-level step as it ran: a page of the run's HAR.
public struct RecordedStep: Hashable, Sendable {
    /// The step's position among the run's top-level steps, from 1.
    public var number: Int
    public var step: Step
    /// World time when it began, in milliseconds since the Unix epoch.
    public var startedAtMilliseconds: Int64
    public var record: StepRecord

    public init(number: Int, step: Step, startedAtMilliseconds: Int64, record: StepRecord) {
        self.number = number
        self.step = step
        self.startedAtMilliseconds = startedAtMilliseconds
        self.record = record
    }

    /// The HAR page id of the step (`step-3`), which its entries name as `pageref`.
    public var pageID: String { "step-\(number)" }
}

/// One page of a web sheet as a report shows it: what the person saw and did there, and how
/// they found what they used.
public struct SheetPage: Hashable, Sendable {
    /// The app whose sheet it was.
    public var app: String
    public var engine: BrowserEngine
    public var method: String
    /// The page's URL without its query, which may carry codes.
    public var url: String
    public var status: Int?
    public var title: String?
    /// What happened there: `submitted the login form (username, password)`, `reached the callback`.
    public var action: String
    /// Whether the sheet ended here with an error.
    public var failed: Bool
    /// Whether the browser only followed a redirect here (the person saw nothing).
    public var isRedirect: Bool
    /// How the person found the inputs and buttons they used.
    public var rules: [String]
    /// What the sheet showed (a JPEG; `webkit` only).
    public var screenshot: Screenshot?

    /// The picture as the sheet took it.
    public typealias Screenshot = WebPageScreenshot

    public init(
        app: String, engine: BrowserEngine, method: String, url: String, status: Int?, title: String?,
        action: String, failed: Bool = false, isRedirect: Bool = false, rules: [String] = [],
        screenshot: WebPageScreenshot? = nil
    ) {
        self.app = app
        self.engine = engine
        self.method = method
        self.url = url
        self.status = status
        self.title = title
        self.action = action
        self.failed = failed
        self.isRedirect = isRedirect
        self.rules = rules
        self.screenshot = screenshot
    }
}
