import COpenSSL

/// HMAC with SHA-256 (RFC 2104, RFC 4231).
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key` (any key length, including empty).
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        HMACSHA256Key(key).authenticationCode(for: message)
    }

    /// Whether `code` is the full 32-byte HMAC-SHA256 of `message` under `key`, compared in constant time.
    public static func isValid(_ code: [UInt8], for message: [UInt8], key: [UInt8]) -> Bool {
        ConstantTime.equals(authenticationCode(for: message, key: key), code)
    }
}

/// An HMAC-SHA256 key prepared once (RFC 2104 §2: the padded key's inner and outer blocks are
/// hashed when the key is set), so that many codes under one key each cost only the message's
/// own compressions: every code starts from a copy of the keyed context.
public final class HMACSHA256Key: @unchecked Sendable {
    /// Keyed and never updated: only copied, which reads it, so copies may be taken from
    /// several threads at once (that is what makes the unchecked `Sendable` sound).
    private let keyed: OpaquePointer

    public init(_ key: [UInt8]) {
        guard let context = EVP_MAC_CTX_new(OpenSSLObjects.shared.hmac) else {
            fatalError("EVP_MAC_CTX_new(HMAC) failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        let initialized = key.withUnsafeBufferPointer { key in
            sis_hmac_sha256_init(context, key.baseAddress, key.count)
        }
        // Failures here mean libcrypto could not allocate; no key makes HMAC fail.
        guard initialized == 1 else {
            EVP_MAC_CTX_free(context)
            fatalError("HMAC-SHA256 key setup failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        keyed = context
    }

    deinit { EVP_MAC_CTX_free(keyed) }

    /// The 32-byte HMAC-SHA256 of `message` under this key.
    public func authenticationCode(for message: [UInt8]) -> [UInt8] {
        guard let context = EVP_MAC_CTX_dup(keyed) else {
            fatalError("EVP_MAC_CTX_dup failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        defer { EVP_MAC_CTX_free(context) }
        let updated = message.withUnsafeBufferPointer { message in
            EVP_MAC_update(context, message.baseAddress, message.count)
        }
        var length = 0
        let code = [UInt8](unsafeUninitializedCapacity: SHA256.digestSize) { buffer, initialized in
            let finished = EVP_MAC_final(context, buffer.baseAddress, &length, SHA256.digestSize)
            initialized = finished == 1 ? length : 0
        }
        guard updated == 1, code.count == SHA256.digestSize else {
            fatalError("HMAC-SHA256 failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        return code
    }
}
