import Locking

/// Deterministic random bytes from a 64-bit seed, for reproducible simulations. Not for real secrets.
///
/// Construction (stable; changing it changes every recorded run):
///
///     key     = seed as 8 bytes, big-endian
///     block i = HMAC-SHA256(key, i as 8 bytes, big-endian)   for i = 0, 1, 2, …
///     stream  = block 0 ‖ block 1 ‖ block 2 ‖ …
///
/// Each call to `bytes(count:)` returns the next `count` bytes of that one stream; unused bytes of a block
/// are kept for the next call. So the output depends only on the seed and on the total number of bytes
/// requested before, not on how requests are split: `bytes(count: 10) + bytes(count: 40)` equals
/// `bytes(count: 50)` from a fresh instance with the same seed. Calls from several threads are serialised
/// by a mutex; which thread gets which part of the stream then depends on scheduling.
public final class SeededRandom: RandomSource {
    private struct State {
        var nextBlock: UInt64 = 0
        var block: [UInt8] = []
        var used = 0
    }

    private let key: HMACSHA256Key
    private let state = Mutex(State())

    public init(seed: UInt64) {
        key = HMACSHA256Key(Self.bigEndian(seed))
    }

    public func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SeededRandom.bytes(count:) needs a count ≥ 0, got \(count)")
        return state.withLock { state in
            var output: [UInt8] = []
            output.reserveCapacity(count)
            while output.count < count {
                if state.used == state.block.count {
                    state.block = key.authenticationCode(for: Self.bigEndian(state.nextBlock))
                    state.nextBlock &+= 1
                    state.used = 0
                }
                let take = min(count - output.count, state.block.count - state.used)
                output.append(contentsOf: state.block[state.used..<state.used + take])
                state.used += take
            }
            return output
        }
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}
