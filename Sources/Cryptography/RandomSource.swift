/// Source of random bytes; injected everywhere so runs can be reproducible.
///
/// Production code uses `SystemRandom`; simulations that must replay use `SeededRandom`.
public protocol RandomSource: Sendable {
    /// `count` bytes (`count` ≥ 0).
    func bytes(count: Int) -> [UInt8]
}
