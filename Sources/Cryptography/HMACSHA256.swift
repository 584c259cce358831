import COpenSSL

/// HMAC with SHA-256 (RFC 2104, RFC 4231).
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key` (any key length, including empty).
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        guard let context = EVP_MAC_CTX_new(OpenSSLObjects.shared.hmac) else {
            fatalError("EVP_MAC_CTX_new(HMAC) failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        defer { EVP_MAC_CTX_free(context) }
        let keyed = key.withUnsafeBufferPointer { key in
            sis_hmac_sha256_init(context, key.baseAddress, key.count)
        }
        let updated = message.withUnsafeBufferPointer { message in
            EVP_MAC_update(context, message.baseAddress, message.count)
        }
        var length = 0
        let code = [UInt8](unsafeUninitializedCapacity: SHA256.digestSize) { buffer, initialized in
            let finished = EVP_MAC_final(context, buffer.baseAddress, &length, SHA256.digestSize)
            initialized = finished == 1 ? length : 0
        }
        // Failures here mean libcrypto could not allocate; no input makes HMAC fail.
        guard keyed == 1, updated == 1, code.count == SHA256.digestSize else {
            fatalError("HMAC-SHA256 failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        return code
    }

    /// Whether `code` is the full 32-byte HMAC-SHA256 of `message` under `key`, compared in constant time.
    public static func isValid(_ code: [UInt8], for message: [UInt8], key: [UInt8]) -> Bool {
        ConstantTime.equals(authenticationCode(for: message, key: key), code)
    }
}
