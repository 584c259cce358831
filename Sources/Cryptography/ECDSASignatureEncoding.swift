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
        guard let first = content.first, first & 0x80 == 0 else { return nil }
        content = content.drop { $0 == 0 }
        guard content.count <= width, !content.isEmpty else { return nil }
        return [UInt8](repeating: 0, count: width - content.count) + content
    }
}
