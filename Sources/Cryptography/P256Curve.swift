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

/// Conversion between the DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3) that OpenSSL uses and the fixed-width
/// `r ‖ s` that JOSE uses (RFC 7518 §3.4).
enum ECDSASignatureEncoding {
    /// DER for `r ‖ s` given as two 32-byte halves, each already checked to be in [1, n-1].
    static func der(fromRaw raw: [UInt8]) -> [UInt8] {
        let half = raw.count / 2
        let r = integerContent(raw[..<half])
        let s = integerContent(raw[half...])
        var der: [UInt8] = [0x30, UInt8(4 + r.count + s.count), 0x02, UInt8(r.count)]
        der.reserveCapacity(6 + r.count + s.count)
        der.append(contentsOf: r)
        der.append(contentsOf: [0x02, UInt8(s.count)])
        der.append(contentsOf: s)
        return der
    }

    /// `r ‖ s`, each left-padded to `width` bytes, from DER; nil if the DER is not a pair of positive
    /// integers that fit.
    static func raw(fromDER der: UnsafeRawBufferPointer, width: Int) -> [UInt8]? {
        var reader = der[...]
        guard reader.popFirst() == 0x30, let length = readLength(&reader), length == reader.count,
            let r = readInteger(&reader, width: width), let s = readInteger(&reader, width: width),
            reader.isEmpty
        else { return nil }
        return r + s
    }

    /// Minimal two's-complement content octets of a positive integer.
    private static func integerContent(_ value: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let significant = value.drop { $0 == 0 }
        if let first = significant.first, first & 0x80 != 0 {
            return [0] + significant
        }
        return significant.isEmpty ? [0] : significant
    }

    private static func readLength(_ reader: inout Slice<UnsafeRawBufferPointer>) -> Int? {
        guard let first = reader.popFirst() else { return nil }
        if first < 0x80 { return Int(first) }
        // OpenSSL uses the long form only past 127 bytes; one length byte is all a P-256..P-521 value needs.
        guard first == 0x81, let length = reader.popFirst(), length >= 0x80 else { return nil }
        return Int(length)
    }

    private static func readInteger(_ reader: inout Slice<UnsafeRawBufferPointer>, width: Int) -> [UInt8]? {
        guard reader.popFirst() == 0x02, let length = readLength(&reader), length > 0, length <= reader.count
        else { return nil }
        var content = reader.prefix(length)
        reader = reader.dropFirst(length)
        guard content.first! & 0x80 == 0 else { return nil }
        content = content.drop { $0 == 0 }
        guard content.count <= width, !content.isEmpty else { return nil }
        return [UInt8](repeating: 0, count: width - content.count) + content
    }
}
