/// Keys ordered by when they expire (a binary min-heap), so that forgetting what has expired
/// costs O(log n) per expired key instead of a scan of everything that is still alive.
///
/// Refresh tokens live for weeks and arrive by the thousand per second under load; scanning
/// their dictionary once a second held the issuer's lock for tens of milliseconds.
struct ExpiryQueue<Key: Sendable>: Sendable {
    private var heap: [(expiresAt: Int64, key: Key)] = []

    var count: Int { heap.count }

    mutating func insert(_ key: Key, expiresAt: Int64) {
        heap.append((expiresAt, key))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].expiresAt < heap[parent].expiresAt else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest key when it has expired at `now` (`expiresAt <= now`).
    mutating func popExpired(now: Int64) -> Key? {
        guard let first = heap.first, first.expiresAt <= now else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first.key }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].expiresAt < heap[smallest].expiresAt { smallest = left }
            if right < heap.count, heap[right].expiresAt < heap[smallest].expiresAt { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first.key
    }
}
