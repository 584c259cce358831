import COpenSSL

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

extension [UInt8] {
    /// The bytes after any leading zero bytes.
    var withoutLeadingZeros: [UInt8] {
        guard let first = firstIndex(where: { $0 != 0 }) else { return [] }
        return first == 0 ? self : Array(self[first...])
    }
}
