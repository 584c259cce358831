/// A dictionary split into a fixed number of smaller ones by the key's hash, so that growing
/// never rehashes everything at once.
///
/// A Swift `Dictionary` doubles its storage and rehashes every entry when it fills up: for the
/// hundreds of thousands of refresh tokens an issuer holds under load, that is one copy of
/// tens of megabytes, made while the issuer's lock is held, and every token request waits for
/// it (a 577 ms p99 once 800,000 tokens were held). Split into 256 shards, a shard that grows
/// rehashes a 256th of the entries. Lookups cost one more hash.
///
/// Only what the issuer's tables need: lookup, in-place update, insertion and removal by key.
/// There is no iteration (shards are picked by `hashValue`, which varies per process).
struct ShardedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private static var shardCount: Int { 256 }

    private var shards = [[Key: Value]](repeating: [:], count: Self.shardCount)

    private static func shard(of key: Key) -> Int { key.hashValue & (shardCount - 1) }

    /// Reads, and writes in place (`table[key]?.field = x` changes the stored value without
    /// copying it out and back).
    subscript(key: Key) -> Value? {
        get { shards[Self.shard(of: key)][key] }
        _modify { yield &shards[Self.shard(of: key)][key] }
    }

    /// The number of entries (a sum over the shards: for checks and reports, not hot paths).
    var count: Int { shards.reduce(0) { $0 + $1.count } }

    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        shards[Self.shard(of: key)].removeValue(forKey: key)
    }
}
