import COpenSSL

/// Process-wide OpenSSL objects fetched once: implicit fetches by name cost a lock and a lookup per call.
final class OpenSSLObjects: @unchecked Sendable {
    // Safe to share: EVP_MD, EVP_MAC and EC_GROUP are only read after creation, never freed, and OpenSSL 3
    // documents fetched algorithms and const groups as usable from any thread.
    static let shared = OpenSSLObjects()

    /// `EVP_MD` for SHA-256.
    let sha256: OpaquePointer
    /// `EVP_MAC` for HMAC.
    let hmac: OpaquePointer
    /// `EC_GROUP` for P-256 (secp256r1, prime256v1).
    let p256: OpaquePointer

    private init() {
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError("libcrypto has no SHA-256 implementation: \(OpenSSLError.drain() ?? "unknown error")")
        }
        guard let hmac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            fatalError("libcrypto has no HMAC implementation: \(OpenSSLError.drain() ?? "unknown error")")
        }
        guard let p256 = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            fatalError("libcrypto has no P-256 group: \(OpenSSLError.drain() ?? "unknown error")")
        }
        self.sha256 = sha256
        self.hmac = hmac
        self.p256 = p256
    }
}

/// Reading and clearing the thread's OpenSSL error queue.
enum OpenSSLError {
    /// The reason of the oldest queued error, if any; always leaves the queue empty.
    static func drain() -> String? {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return nil }
        if let reason = ERR_reason_error_string(code) {
            return String(cString: reason)
        }
        return "error code \(code)"
    }

    /// A `CryptoError` whose message ends with OpenSSL's reason; drains the queue.
    static func error(_ code: CryptoError.Code, _ message: String) -> CryptoError {
        if let reason = drain() {
            return CryptoError(code, "\(message) (OpenSSL: \(reason))")
        }
        return CryptoError(code, message)
    }
}

/// An owned `BIGNUM`, cleared when freed because it may hold a private value.
final class BigNumber {
    let pointer: OpaquePointer

    /// A number from big-endian unsigned bytes (empty means zero).
    init(bigEndian bytes: [UInt8]) throws(CryptoError) {
        let made = bytes.withUnsafeBufferPointer { buffer in
            BN_bin2bn(buffer.baseAddress, Int32(buffer.count), nil)
        }
        guard let made else {
            throw OpenSSLError.error(.invalidKey, "could not allocate a big number")
        }
        BN_set_flags(made, BN_FLG_CONSTTIME)
        pointer = made
    }

    /// Takes ownership of `pointer`.
    init(adopting pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A new zero, or nil when allocation fails.
    static func make() -> BigNumber? {
        BN_new().map(BigNumber.init(adopting:))
    }

    deinit { BN_clear_free(pointer) }

    var bitCount: Int { Int(BN_num_bits(pointer)) }

    /// Big-endian bytes without leading zeros (empty for zero).
    var bigEndianBytes: [UInt8] {
        Self.bigEndianBytes(of: pointer)
    }

    /// Big-endian bytes of a borrowed `BIGNUM`, without leading zeros.
    static func bigEndianBytes(of bignum: OpaquePointer) -> [UInt8] {
        let count = (Int(BN_num_bits(bignum)) + 7) / 8
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = Int(BN_bn2bin(bignum, buffer.baseAddress))
        }
    }

    /// Big-endian bytes left-padded to `width`, or nil when the number does not fit.
    static func bigEndianBytes(of bignum: OpaquePointer, width: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: width)
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(bignum, buffer.baseAddress, Int32(width))
        }
        return written == Int32(width) ? bytes : nil
    }
}

/// Reading the integers and points that OpenSSL exposes as key parameters.
enum KeyParameter {
    /// A `BIGNUM` parameter (`"n"`, `"priv"`, `"qx"`, …) as big-endian bytes, or nil if the key lacks it.
    static func bigEndian(_ pkey: OpaquePointer, _ name: String, width: Int? = nil) -> [UInt8]? {
        var bignum: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pkey, name, &bignum) == 1, let bignum else {
            ERR_clear_error()
            return nil
        }
        defer { BN_clear_free(bignum) }
        if let width {
            return BigNumber.bigEndianBytes(of: bignum, width: width)
        }
        return BigNumber.bigEndianBytes(of: bignum)
    }
}

extension [UInt8] {
    /// The bytes after any leading zero bytes.
    var withoutLeadingZeros: [UInt8] {
        guard let first = firstIndex(where: { $0 != 0 }) else { return [] }
        return first == 0 ? self : Array(self[first...])
    }
}
