import Foundation
import Locking
public import Scenario

/// The scenario files under the paths given to `run`, `list` and `validate`.
public enum ScenarioDiscovery {
    /// Files with these extensions are scenarios.
    public static let extensions = ["yaml", "yml", "json"]
    /// Folders of this name hold `runFlow` includes, not scenarios.
    public static let includeFolderName = "flows"

    /// Scenario files: each file given, and every scenario file under each folder given,
    /// sorted by path so that every run (and every shard) sees one order.
    public static func files(in paths: [String]) throws(ScenarioError) -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ScenarioError(
                    .unreadable, "\(path) does not exist", at: SourceLocation(file: path, line: 1, column: 1))
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            guard let walker = manager.enumerator(atPath: base) else { continue }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                let components = relative.split(separator: "/")
                if components.contains(where: { $0 == includeFolderName || $0.hasPrefix(".") }) { continue }
                // scenario.schema.json sits among the scenarios for editors; it is not one.
                guard let ext = relative.split(separator: ".").last, extensions.contains(ext.lowercased()),
                    !relative.hasSuffix(".schema.json")
                else { continue }
                found.append(base + "/" + relative)
            }
            files += found.sorted()
        }
        var seen = Set<String>()
        return files.filter { seen.insert($0).inserted }
    }
}

/// Which scenarios a run takes.
public struct ScenarioSelection: Hashable, Sendable {
    /// Run only scenarios with at least one of these tags (empty: all).
    public var includeTags: [String] = []
    /// Skip scenarios with any of these tags.
    public var excludeTags: [String] = []
    /// This machine's share of the suite: shard `index` (from 1) of `count`.
    public var shard: ShardSplit?

    public init(
        includeTags: [String] = [], excludeTags: [String] = [], shard: ShardSplit? = nil
    ) {
        self.includeTags = includeTags
        self.excludeTags = excludeTags
        self.shard = shard
    }

    /// Whether the tags let a scenario in (any-of include, any-of exclude).
    public func admits(tags: [String]) -> Bool {
        if !includeTags.isEmpty, !tags.contains(where: includeTags.contains) { return false }
        return !tags.contains(where: excludeTags.contains)
    }

    /// The files this shard runs: round robin over the sorted list, so every file lands in
    /// exactly one shard and shards differ in size by at most one.
    public func shardFiles(_ files: [String]) -> [String] {
        guard let shard else { return files }
        return files.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }
}

/// Runs many scenarios, `jobs` at a time, each in its own world.
public final class ScenarioSuite: Sendable {
    public struct Options: Sendable {
        /// The run's seed (`--seed`); `nil`: scenarios against the embedded issuer derive theirs
        /// from 0, and scenarios against a real issuer draw fresh randomness.
        public var seed: UInt64?
        public var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
        public var failFast = false
        public var timeLimitSeconds: Double = 120
        /// The engines of the web sheets.
        public var browsers = BrowserSelection()
        /// Which web sheet screenshots the reports keep.
        public var screenshots = ScreenshotPolicy.auto

        public init() {}
    }

    let options: Options
    private let stopping = Mutex(false)

    public init(options: Options) {
        self.options = options
    }

    /// Stops the run: no new scenario starts, running ones are interrupted.
    public func stop() { stopping.withLock { $0 = true } }
    public var isStopping: Bool { stopping.withLock { $0 } }

    /// The seed a scenario runs with: its own, or one derived from the run's seed and its
    /// file and name, so that results do not depend on which job runs it or when. Without a
    /// run seed, a scenario against the embedded issuer derives its own from 0 (a run is
    /// reproducible by default), and one against a real issuer gets none: its `state`, `nonce`
    /// and PKCE values come fresh from the system, as a real app's do.
    public static func seed(for scenario: Scenario, runSeed: UInt64?) -> UInt64? {
        if let seed = scenario.seed { return seed }
        if runSeed == nil, case .external = scenario.issuer { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ (runSeed ?? 0)
        for byte in (scenario.location.file + "\u{0}" + scenario.name).utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// Runs the scenarios; `started` is called once per scenario the run starts, before it is
    /// run (a scenario `stop()` skipped is never started), and `finished` once per scenario as
    /// it ends (in any order). Results come back in the order given.
    public func run(
        _ scenarios: [Scenario], started: @escaping @Sendable (Scenario) async -> Void = { _ in },
        finished: @escaping @Sendable (ScenarioRunner.Outcome) async -> Void
    ) async -> [ScenarioResult] {
        let jobs = max(1, options.jobs)
        let options = self.options
        var results = [ScenarioResult?](repeating: nil, count: scenarios.count)
        await withTaskGroup(of: (Int, ScenarioResult).self) { group in
            var next = 0
            func startNext() {
                guard next < scenarios.count else { return }
                let index = next
                next += 1
                let scenario = scenarios[index]
                group.addTask {
                    if self.isStopping {
                        return (
                            index,
                            Self.notRun(scenario, seed: Self.seed(for: scenario, runSeed: options.seed))
                        )
                    }
                    await started(scenario)
                    let outcome = await ScenarioRunner.run(
                        scenario, seed: Self.seed(for: scenario, runSeed: options.seed),
                        timeLimitSeconds: options.timeLimitSeconds, browsers: options.browsers,
                        screenshots: options.screenshots)
                    await finished(outcome)
                    return (index, outcome.result)
                }
            }
            for _ in 0..<jobs { startNext() }
            while let (index, result) = await group.next() {
                results[index] = result
                if options.failFast, result.status == .failed { stop() }
                startNext()
            }
        }
        return results.enumerated().map {
            $0.element
                ?? Self.notRun(
                    scenarios[$0.offset], seed: Self.seed(for: scenarios[$0.offset], runSeed: options.seed))
        }
    }

    /// A scenario the run never started (interrupted, or stopped by --fail-fast).
    static func notRun(_ scenario: Scenario, seed: UInt64?) -> ScenarioResult {
        ScenarioResult(
            name: scenario.name, file: scenario.location.file, description: scenario.description,
            tags: scenario.tags,
            status: .skipped,
            failure: StepFailure(
                step: "run", location: scenario.location, message: "not run: the run was stopped"),
            seed: seed)
    }
}
