/// One machine's share of a run split across several: `--shard-split I/N`, shard `index`
/// (from 1) of `count`. `run` reads it from its option, and `merge-reports` from each shard's
/// report, through the same parser.
public struct ShardSplit: Hashable, Sendable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// Shard `index` of `count`; nil unless 1 ≤ `index` ≤ `count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `I/N` as written on the command line and in a report; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }
}
