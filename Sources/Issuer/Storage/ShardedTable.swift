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
///
/// A shard also gives room back. A `Dictionary` never shrinks, and a table whose total stays
/// the same still has shards that drift up and down around their share: the refresh tokens of
/// a fixed fleet of families (about 70 a shard) are replaced by new ones with other hashes at
/// every refresh. Each shard's storage would follow the highest count it ever reached, so the
/// table's memory rose for minutes under a steady load (heaptrack, `SOAK_LOADS=refresh
/// scripts/bench soak`'s load: 451 KB more shard storage live after 120 s than after 30 s, in
/// 41 reallocations, and a steady RSS slope). A shard that falls under a third of its room is
/// copied into storage of its size: a copy of one shard (under a hundred entries at that load),
/// rare, and never straight after it grew (growing doubles the room, so the count is then over
/// half of it).
struct ShardedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private static var shardCount: Int { 256 }
    /// Rooms this small are not worth copying to shrink.
    private static var smallestRoomToShrink: Int { 24 }

    private var shards = [[Key: Value]](repeating: [:], count: Self.shardCount)

    private static func shard(of key: Key) -> Int { key.hashValue & (shardCount - 1) }

    /// Reads, and writes in place (`table[key]?.field = x` changes the stored value without
    /// copying it out and back); assigning `nil` removes.
    subscript(key: Key) -> Value? {
        get { shards[Self.shard(of: key)][key] }
        _modify {
            let index = Self.shard(of: key)
            yield &shards[index][key]
            shrinkIfSparse(index)
        }
    }

    /// The number of entries (a sum over the shards: for checks and reports, not hot paths).
    var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// How many entries the shards' storage has room for (for checks and reports).
    var capacity: Int { shards.reduce(0) { $0 + $1.capacity } }

    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        let index = Self.shard(of: key)
        let removed = shards[index].removeValue(forKey: key)
        if removed != nil { shrinkIfSparse(index) }
        return removed
    }

    private mutating func shrinkIfSparse(_ index: Int) {
        let room = shards[index].capacity
        guard room > Self.smallestRoomToShrink, shards[index].count * 3 < room else { return }
        var smaller = [Key: Value](minimumCapacity: shards[index].count)
        for (key, value) in shards[index] { smaller[key] = value }
        shards[index] = smaller
    }
}
