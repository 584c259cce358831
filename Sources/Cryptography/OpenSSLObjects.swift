import COpenSSL

/// Process-wide OpenSSL objects fetched once: implicit fetches by name cost a lock and a lookup per call.
final class OpenSSLObjects: @unchecked Sendable {
    // Safe to share: EVP_MD, EVP_MAC and EC_GROUP are only read after creation, never freed, and OpenSSL 3
    // documents fetched algorithms and const groups as usable from any thread.
    static let shared = OpenSSLObjects()

    /// `EVP_MD` for SHA-256, SHA-384 and SHA-512.
    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer
    /// `EVP_MAC` for HMAC.
    let hmac: OpaquePointer
    /// `EC_GROUP` for P-256 (secp256r1, prime256v1).
    let p256: OpaquePointer

    private init() {
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError("libcrypto has no SHA-256 implementation: \(OpenSSLError.drain() ?? "unknown error")")
        }
        guard let sha384 = EVP_MD_fetch(nil, "SHA384", nil), let sha512 = EVP_MD_fetch(nil, "SHA512", nil)
        else {
            fatalError("libcrypto has no SHA-384 or SHA-512: \(OpenSSLError.drain() ?? "unknown error")")
        }
        guard let hmac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            fatalError("libcrypto has no HMAC implementation: \(OpenSSLError.drain() ?? "unknown error")")
        }
        guard let p256 = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            fatalError("libcrypto has no P-256 group: \(OpenSSLError.drain() ?? "unknown error")")
        }
        self.sha256 = sha256
        self.sha384 = sha384
        self.sha512 = sha512
        self.hmac = hmac
        self.p256 = p256
    }
}
