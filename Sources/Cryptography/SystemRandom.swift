import COpenSSL

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`), seeded by the operating system.
public struct SystemRandom: RandomSource {
    public init() {}

    /// `count` cryptographically secure random bytes; traps only if the OS CSPRNG fails.
    public func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SystemRandom.bytes(count:) needs a count ≥ 0, got \(count)")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var offset = 0
            while offset < count {
                let chunk = min(count - offset, 1 << 30)
                // An unseedable CSPRNG leaves no safe way to continue: keys and nonces would be predictable.
                guard RAND_bytes(buffer.baseAddress! + offset, Int32(chunk)) == 1 else {
                    fatalError("RAND_bytes failed: \(OpenSSLError.drain() ?? "unknown error")")
                }
                offset += chunk
            }
            initialized = count
        }
    }
}
