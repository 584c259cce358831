import JOSE

/// The provider's keys over time: one active, others published, retired ones published until
/// their period ends, and a reserve for rotation.
struct AppleKeyRing: Sendable {
    private struct Entry: Sendable {
        var key: AppleSigningKey
        /// When `rotateKeys()` replaced it as the active key; `nil` while active or never active.
        var retiredAt: Int64?
    }

    private var entries: [Entry]
    private var activeIndex = 0
    private var reserve: [AppleSigningKey]

    init(_ keySet: AppleKeySet) {
        entries = keySet.publishedKeys.map { Entry(key: $0, retiredAt: nil) }
        reserve = keySet.reserveKeys
    }

    var active: AppleSigningKey { entries[activeIndex].key }

    /// The keys `/auth/keys` shows at `now`, in publication order.
    func published(now: Int64, retention: Int64) -> [AppleSigningKey] {
        entries.filter { entry in entry.retiredAt.map { now < $0 + retention } ?? true }.map(\.key)
    }

    /// The next reserve key, removed from the reserve; `nil` when the reserve is used up.
    mutating func takeReserve() -> AppleSigningKey? { reserve.isEmpty ? nil : reserve.removeFirst() }

    /// Makes `key` the active key and retires the current one at `now`; keys whose publication
    /// period ended are dropped.
    mutating func activate(_ key: AppleSigningKey, now: Int64, retention: Int64) {
        entries[activeIndex].retiredAt = now
        entries.removeAll { entry in entry.retiredAt.map { now >= $0 + retention } ?? false }
        entries.append(Entry(key: key, retiredAt: nil))
        activeIndex = entries.count - 1
    }
}
