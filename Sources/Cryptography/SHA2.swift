import COpenSSL

/// The SHA-2 functions (FIPS 180-4) by digest size, for callers that pick one at run time.
///
/// A JWS `alg` names its hash by size (RFC 7518 §3.1), and OpenID Connect's `at_hash` and
/// `c_hash` use the hash of the ID token's `alg` (Core §3.1.3.6). `SHA256` stays the
/// fixed-size API the rest of the code calls; its digest is computed here.
public enum SHA2: Sendable, Hashable, CaseIterable {
    case sha256
    case sha384
    case sha512

    /// Length of a digest in bytes.
    public var digestSize: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The digest of `data`.
    public func hash(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { hash($0) }
    }

    /// The digest of the UTF-8 bytes of `text`.
    public func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    func hash(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: digestSize) { buffer, initialized in
            digest(data, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = digestSize
        }
    }

    /// Writes the digest of `data` into the first `digestSize` bytes of `output`.
    func digest(_ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= digestSize)
        let objects = OpenSSLObjects.shared
        let algorithm =
            switch self {
            case .sha256: objects.sha256
            case .sha384: objects.sha384
            case .sha512: objects.sha512
            }
        var size: UInt32 = 0
        let status = EVP_Digest(
            data.baseAddress, data.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &size,
            algorithm, nil)
        // Only an allocation failure inside libcrypto can get here.
        guard status == 1, size == UInt32(digestSize) else {
            fatalError("EVP_Digest(\(self)) failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
    }
}
