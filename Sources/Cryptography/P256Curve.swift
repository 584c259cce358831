/// Constants and range checks for P-256 (SEC 2 secp256r1, FIPS 186-4 D.1.2.3).
enum P256Curve {
    /// Size of a coordinate, a scalar, and each half of a JOSE signature.
    static let byteCount = 32

    /// The field prime p.
    static let prime: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]

    /// The group order n.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// Whether the 32-byte big-endian `value` is in [1, n-1], in time independent of its content
    /// (it is used on private scalars).
    static func isScalarInRange<C: Collection>(_ value: C) -> Bool where C.Element == UInt8 {
        precondition(value.count == byteCount)
        // Scan every byte: `less` latches when value < n at the first differing byte, `decided` when they differ.
        var less: UInt8 = 0
        var decided: UInt8 = 0
        var nonZero: UInt8 = 0
        for (byte, limit) in zip(value, order) {
            let lt = UInt8(truncatingIfNeeded: (Int16(byte) - Int16(limit)) >> 8) & 1
            let gt = UInt8(truncatingIfNeeded: (Int16(limit) - Int16(byte)) >> 8) & 1
            less |= lt & ~decided
            decided |= lt | gt
            nonZero |= byte
        }
        let isNonZero = UInt8(truncatingIfNeeded: (0 &- UInt16(nonZero)) >> 8) & 1
        return (less & isNonZero) == 1
    }

    /// Whether the 32-byte big-endian coordinate is below p (a canonical field element). Not secret.
    static func isFieldElement<C: Collection>(_ value: C) -> Bool where C.Element == UInt8 {
        precondition(value.count == byteCount)
        for (byte, limit) in zip(value, prime) where byte != limit {
            return byte < limit
        }
        return false
    }
}
