import COpenSSL
import Locking

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`), seeded by the operating system.
///
/// Small requests (ids, codes, tokens: 16 to 32 bytes, several per request an issuer answers)
/// are served from one process-wide 4 KiB block drawn from `RAND_bytes` at a time: each
/// `RAND_bytes` call runs the DRBG's whole generate step (NIST SP 800-90A §9.3, with its
/// additional input), which costs as much for 32 bytes as for 4 KiB. A byte handed out is
/// erased from the block, and no byte is ever handed out twice.
public struct SystemRandom: RandomSource {
    public init() {}

    /// `count` cryptographically secure random bytes; traps only if the OS CSPRNG fails.
    public func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SystemRandom.bytes(count:) needs a count ≥ 0, got \(count)")
        guard count <= Self.largestBuffered else { return Self.draw(count) }
        return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            Self.block.withLock { block in
                if block.bytes.count - block.used < count {
                    block.bytes = Self.draw(Self.blockSize)
                    block.used = 0
                }
                block.bytes.withUnsafeMutableBufferPointer { bytes in
                    let taken = UnsafeMutableBufferPointer(rebasing: bytes[block.used..<block.used + count])
                    _ = output.initialize(fromContentsOf: taken)
                    taken.update(repeating: 0)
                }
                block.used += count
            }
            initialized = count
        }
    }

    private struct Block {
        var bytes: [UInt8] = []
        var used = 0
    }

    private static let blockSize = 4096
    /// Larger requests go straight to `RAND_bytes`.
    private static let largestBuffered = 256
    private static let block = Mutex(Block())

    private static func draw(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var offset = 0
            while offset < count {
                let chunk = min(count - offset, 1 << 30)
                // An unseedable CSPRNG leaves no safe way to continue: keys and nonces would be predictable.
                guard RAND_bytes(buffer.baseAddress.map { $0 + offset }, Int32(chunk)) == 1 else {
                    fatalError("RAND_bytes failed: \(OpenSSLError.drain() ?? "unknown error")")
                }
                offset += chunk
            }
            initialized = count
        }
    }
}
