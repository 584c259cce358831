import COpenSSL

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
