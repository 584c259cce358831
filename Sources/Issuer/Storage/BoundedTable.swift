/// A dictionary of at most `capacity` entries that forgets the oldest (the one inserted first)
/// to make room for a new one.
///
/// For what any client can make the issuer create without signing in (a login transaction per
/// `GET /authorize`): without a bound, 150,000 requests in 9 s held 800 MB for the ten minutes a
/// transaction lives (issue 27).
///
/// Insertion order is a queue of keys, each with the serial number it was inserted under; an
/// entry removed or replaced early leaves a stale key behind, skipped when it comes up and
/// cleared in bulk once stale keys outnumber live ones, so every operation is O(1) amortised.
struct BoundedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let capacity: Int
    private var entries: [Key: (serial: UInt64, value: Value)] = [:]
    private var order: [(serial: UInt64, key: Key)] = []
    /// `order` from here on is still to be looked at.
    private var head = 0
    private var nextSerial: UInt64 = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { entries.count }

    /// Reads; writing a new key inserts it as the newest (forgetting the oldest when full),
    /// writing an existing one replaces its value in place (it keeps its age), writing `nil`
    /// removes it.
    subscript(key: Key) -> Value? {
        get { entries[key]?.value }
        set {
            guard let newValue else {
                entries[key] = nil
                compactIfStale()
                return
            }
            if var entry = entries[key] {
                entry.value = newValue
                entries[key] = entry
                return
            }
            insert(key, newValue)
        }
    }

    /// The keys, oldest first (for tests and checks: O(n)).
    var keysOldestFirst: [Key] {
        order[head...].filter { entries[$0.key]?.serial == $0.serial }.map(\.key)
    }

    /// How many keys the insertion-order queue holds, stale ones included (for tests).
    var queuedKeys: Int { order.count - head }

    /// Removes every entry for which `shouldRemove` holds.
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        entries = entries.filter { !shouldRemove($0.value.value) }
        compactIfStale()
    }

    private mutating func insert(_ key: Key, _ value: Value) {
        while entries.count >= capacity, head < order.count {
            let oldest = order[head]
            head += 1
            if entries[oldest.key]?.serial == oldest.serial { entries[oldest.key] = nil }
        }
        entries[key] = (nextSerial, value)
        order.append((nextSerial, key))
        nextSerial += 1
        compactIfStale()
    }

    /// Drops the stale keys of `order` once they are more than the live ones.
    private mutating func compactIfStale() {
        guard order.count - head > 2 * entries.count + 16 || head > order.count / 2 else { return }
        order = order[head...].filter { entries[$0.key]?.serial == $0.serial }
        head = 0
    }
}
