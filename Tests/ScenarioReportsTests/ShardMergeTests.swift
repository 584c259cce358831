import Scenario
import ScenarioReports
import Testing

/// Joining shard reports: order, totals, and every way the reports may not be one run.
@Suite struct ShardMergeTests {
    static let keys = ["a", "b", "c", "d"].map { ScenarioKey(file: "s/\($0).yaml", name: $0) }

    static func result(_ key: ScenarioKey, _ status: ScenarioResult.Status = .passed) -> ScenarioResult {
        ScenarioResult(name: key.name, file: key.file, status: status, seed: 7)
    }

    static func shard(
        _ index: Int, of count: Int = 2, _ results: [ScenarioResult], selection: [ScenarioKey] = keys,
        seed: UInt64? = 7, duration: Double = 10, interrupted: Bool = false
    ) -> ShardMerge.Shard {
        ShardMerge.Shard(
            file: "shard\(index).json",
            summary: RunSummary(
                results: results, interrupted: interrupted, durationMilliseconds: duration, seed: seed,
                shard: "\(index)/\(count)", selection: selection))
    }

    static func code(_ shards: [ShardMerge.Shard]) -> ShardMergeError.Code? {
        do {
            _ = try ShardMerge.merge(shards)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func joinsInTheRunsOrder() throws {
        let merged = try ShardMerge.merge([
            Self.shard(2, [Self.result(Self.keys[3], .failed), Self.result(Self.keys[1])], duration: 30),
            Self.shard(1, [Self.result(Self.keys[2]), Self.result(Self.keys[0])], interrupted: true),
        ])
        #expect(merged.results.map(\.key) == Self.keys)
        #expect(merged.count(.failed) == 1)
        #expect(merged.interrupted)
        #expect(merged.durationMilliseconds == 30)
        #expect(merged.seed == 7)
        #expect(merged.shard == nil)
    }

    @Test func refusesWhatIsNotOneWholeRun() {
        let first = Self.shard(1, [Self.result(Self.keys[0]), Self.result(Self.keys[1])])
        let second = Self.shard(2, [Self.result(Self.keys[2]), Self.result(Self.keys[3])])
        #expect(Self.code([]) == .noReports)
        #expect(Self.code([first]) == .missing)
        #expect(Self.code([first, second, second]) == .duplicate)
        #expect(Self.code([first, Self.shard(2, of: 3, [Self.result(Self.keys[2])])]) == .differentRuns)
        #expect(Self.code([first, Self.shard(2, second.summary.results, seed: 8)]) == .differentRuns)
        #expect(
            Self.code([first, Self.shard(2, second.summary.results, selection: Array(Self.keys.prefix(3)))])
                == .differentRuns)
        let stray = ScenarioKey(file: "s/z.yaml", name: "z")
        #expect(
            Self.code([first, Self.shard(2, second.summary.results + [Self.result(stray)])]) == .differentRuns
        )
        var unsharded = second
        unsharded.summary.shard = nil
        #expect(Self.code([first, unsharded]) == .notAShard)
        for bad in ["0/0", "3/2", "x", "1/0", "-1/2"] {
            var odd = second
            odd.summary.shard = bad
            #expect(Self.code([first, odd]) == .notAShard, "\(bad)")
        }
    }
}
