/// Keys ordered by when they expire (a binary min-heap), so that forgetting what has expired
/// costs O(log n) per expired key instead of a scan of everything that is still alive.
///
/// Refresh tokens live for weeks and arrive by the thousand per second under load; scanning
/// their dictionary once a second held the issuer's lock for tens of milliseconds.
///
/// The heap is stored in fixed-size chunks rather than one array: one array doubles as it
/// grows, so that after a load test it held up to twice the room it needed (21 MB for 270,000
/// tokens) and each doubling copied it all under the issuer's lock.
struct ExpiryQueue<Key: Sendable>: Sendable {
    private typealias Entry = (expiresAt: Int64, key: Key)

    /// Entries per chunk (a power of two).
    private static var chunkSize: Int { 4096 }

    private var chunks: [[Entry]] = []
    private(set) var count = 0

    private subscript(index: Int) -> Entry {
        get { chunks[index / Self.chunkSize][index % Self.chunkSize] }
        set { chunks[index / Self.chunkSize][index % Self.chunkSize] = newValue }
    }

    private mutating func swapAt(_ first: Int, _ second: Int) {
        let entry = self[first]
        self[first] = self[second]
        self[second] = entry
    }

    mutating func insert(_ key: Key, expiresAt: Int64) {
        if count == chunks.count * Self.chunkSize {
            var chunk: [Entry] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append((expiresAt, key))
        count += 1
        var child = count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard self[child].expiresAt < self[parent].expiresAt else { break }
            swapAt(child, parent)
            child = parent
        }
    }

    /// When the earliest key expires.
    var nextExpiry: Int64? { count > 0 ? self[0].expiresAt : nil }

    /// Removes and returns the earliest key when it has expired at `now` (`expiresAt <= now`).
    mutating func popExpired(now: Int64) -> Key? {
        guard count > 0 else { return nil }
        let first = self[0]
        guard first.expiresAt <= now else { return nil }
        let last = chunks[chunks.count - 1].removeLast()
        if chunks[chunks.count - 1].isEmpty { chunks.removeLast() }
        count -= 1
        guard count > 0 else { return first.key }
        self[0] = last
        siftDown(from: 0)
        return first.key
    }

    /// Removes every entry whose key `shouldRemove` picks, and restores the heap: O(n).
    mutating func removeAll(where shouldRemove: (Key) -> Bool) {
        var kept: [Entry] = []
        kept.reserveCapacity(count)
        for chunk in chunks { kept += chunk.lazy.filter { !shouldRemove($0.key) } }
        chunks = []
        count = 0
        for start in stride(from: 0, to: kept.count, by: Self.chunkSize) {
            var chunk: [Entry] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunk += kept[start..<min(start + Self.chunkSize, kept.count)]
            chunks.append(chunk)
        }
        count = kept.count
        // Floyd's heap construction: sift down every parent, the last first.
        var parent = count / 2 - 1
        while parent >= 0 {
            siftDown(from: parent)
            parent -= 1
        }
    }

    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < count, self[left].expiresAt < self[smallest].expiresAt { smallest = left }
            if right < count, self[right].expiresAt < self[smallest].expiresAt { smallest = right }
            guard smallest != parent else { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }
}
