import Testing

@testable import Scenario

/// `--shard-split I/N`, as `run` reads it from its option and `merge-reports` from a report.
@Suite struct ShardSplitTests {
    @Test func readsIndexAndCount() throws {
        let split = try #require(ShardSplit("2/3"))
        #expect(split.index == 2)
        #expect(split.count == 3)
        #expect(split.description == "2/3")
        #expect(ShardSplit("1/1") == ShardSplit(index: 1, count: 1))
    }

    @Test(arguments: ["0/2", "3/2", "1/0", "-1/2", "2", "1/2/3", "/2", "1/", "a/b", "", "1 /2"])
    func refusesWhatIsNotAShard(_ text: String) {
        #expect(ShardSplit(text) == nil)
    }
}
