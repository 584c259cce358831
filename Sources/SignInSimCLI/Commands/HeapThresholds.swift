#if os(Linux)
    internal import CMalloc
#endif

/// glibc's heap thresholds, held at their defaults for a long-running `serve`.
///
/// glibc serves a block of 128 KiB or more with its own `mmap` and hands it back on `free`. When
/// such a block is freed, glibc raises that threshold to the block's size (up to 32 MiB) and the
/// trim threshold to twice it, so that later blocks of that size come from the heap instead
/// (mallopt(3), `M_MMAP_THRESHOLD`: "dynamic mmap threshold"). The issuer's request log grows
/// an array of several megabytes once, early; from then on glibc no longer gives back the free
/// memory at the top of its heaps, and a steady load fragments them a little further each
/// minute.
///
/// Setting the threshold once, to the default, switches that adjustment off. Measured with
/// `SOAK_LOADS=refresh scripts/bench soak` (2026-12-05, with `ShardedTable` shrinking its
/// shards): RSS slope after the warm-up +0.08 MB/min in two runs, against +1.8 and +2.7 without
/// it, and the RSS at the end about 5 MB lower (docs/reliability.md, "Soak").
enum HeapThresholds {
    /// The threshold glibc starts with (mallopt(3)).
    static let mmapThreshold: Int32 = 128 * 1024

    /// Fixes the mmap threshold at its default; false if glibc refused. Without glibc there is
    /// nothing to fix.
    @discardableResult
    static func holdAtDefaults() -> Bool {
        #if os(Linux)
            return mallopt(M_MMAP_THRESHOLD, mmapThreshold) == 1
        #else
            return true
        #endif
    }
}
