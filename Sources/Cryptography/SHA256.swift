import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// Length of a SHA-256 digest in bytes.
    public static let digestSize = 32

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { hash($0) }
    }

    /// The SHA-256 digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    static func hash(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: digestSize) { buffer, initialized in
            digest(data, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = digestSize
        }
    }

    /// Writes the digest of `data` into the first 32 bytes of `output`.
    static func digest(_ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= digestSize)
        var size: UInt32 = 0
        let status = EVP_Digest(
            data.baseAddress, data.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &size,
            OpenSSLObjects.shared.sha256, nil)
        // Only an allocation failure inside libcrypto can get here.
        guard status == 1, size == UInt32(digestSize) else {
            fatalError("EVP_Digest(SHA-256) failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
    }

    /// Calls `body` with the digest of `message` in a stack buffer, avoiding a heap allocation.
    static func withDigest<R>(of message: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: digestSize, alignment: 1) { buffer in
            message.withUnsafeBytes { digest($0, into: buffer) }
            return body(UnsafeRawBufferPointer(buffer))
        }
    }
}
