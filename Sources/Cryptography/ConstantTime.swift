import COpenSSL

/// Comparisons whose running time does not depend on where secret bytes differ.
public enum ConstantTime {
    /// Whether `a` and `b` are equal; the time depends only on the length, which is not treated as secret.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
            }
        }
    }
}
