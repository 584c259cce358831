import Foundation

/// Base64 with the URL and filename safe alphabet and no padding (RFC 7515 §2, RFC 4648 §5).
public enum Base64URL {
    /// Encodes bytes without `=` padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let encode = { (source: UnsafeRawBufferPointer) -> String in
            String(unsafeUninitializedCapacity: encodedLength(source.count)) { write(source, into: $0) }
        }
        return bytes.withContiguousStorageIfAvailable { encode(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes(encode)
    }

    /// Encodes bytes to ASCII bytes without `=` padding.
    public static func encodeToBytes(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let encode = { (source: UnsafeRawBufferPointer) -> [UInt8] in
            [UInt8](unsafeUninitializedCapacity: encodedLength(source.count)) { buffer, count in
                count = write(source, into: buffer)
            }
        }
        return bytes.withContiguousStorageIfAvailable { encode(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes(encode)
    }

    private static let alphabet: StaticString =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// How many characters `count` bytes encode to.
    public static func encodedLength(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Writes the encoding of `source` at the start of `destination`, which must have room for
    /// `encodedLength(source.count)` bytes; returns that length.
    @discardableResult
    public static func write(
        _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableBufferPointer<UInt8>
    )
        -> Int
    {
        let length = encodedLength(source.count)
        precondition(destination.count >= length, "base64url destination too small")
        let table = alphabet.utf8Start
        var input = 0
        var output = 0
        while input + 3 <= source.count {
            let value =
                UInt32(source[input]) << 16 | UInt32(source[input + 1]) << 8 | UInt32(source[input + 2])
            destination[output] = table[Int(value >> 18)]
            destination[output + 1] = table[Int(value >> 12 & 0x3F)]
            destination[output + 2] = table[Int(value >> 6 & 0x3F)]
            destination[output + 3] = table[Int(value & 0x3F)]
            input += 3
            output += 4
        }
        switch source.count - input {
        case 1:
            let value = UInt32(source[input]) << 16
            destination[output] = table[Int(value >> 18)]
            destination[output + 1] = table[Int(value >> 12 & 0x3F)]
        case 2:
            let value = UInt32(source[input]) << 16 | UInt32(source[input + 1]) << 8
            destination[output] = table[Int(value >> 18)]
            destination[output + 1] = table[Int(value >> 12 & 0x3F)]
            destination[output + 2] = table[Int(value >> 6 & 0x3F)]
        default: break
        }
        return length
    }

    /// Encodes the UTF-8 bytes of a string.
    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes unpadded base64url.
    ///
    /// Strict, so that one token has one spelling: padding, white space, characters outside
    /// the alphabet, an impossible length (4n+1), and non-zero unused trailing bits are errors.
    public static func decode(_ text: some StringProtocol, maximumLength: Int = 1 << 20) throws(JOSEError)
        -> [UInt8]
    {
        let utf8 = text.utf8
        guard utf8.count <= maximumLength else {
            throw JOSEError(.tooLarge, "base64url text is longer than \(maximumLength) characters")
        }
        guard utf8.count % 4 != 1 else {
            throw JOSEError(.malformedBase64URL, "base64url text has an impossible length (\(utf8.count))")
        }
        var standard: [UInt8] = []
        standard.reserveCapacity(utf8.count + 3)
        var lastValue: UInt8 = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                lastValue = byte - UInt8(ascii: "A")
                standard.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                lastValue = byte - UInt8(ascii: "a") + 26
                standard.append(byte)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                lastValue = byte - UInt8(ascii: "0") + 52
                standard.append(byte)
            case UInt8(ascii: "-"):
                lastValue = 62
                standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"):
                lastValue = 63
                standard.append(UInt8(ascii: "/"))
            default:
                throw JOSEError(.malformedBase64URL, "base64url text contains \(describe(byte))")
            }
        }
        // RFC 4648 §3.5: the unused bits of the last character must be zero for a canonical encoding.
        switch utf8.count % 4 {
        case 2:
            guard lastValue & 0x0F == 0 else {
                throw JOSEError(.malformedBase64URL, "base64url text has non-zero trailing bits")
            }
            standard.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")])
        case 3:
            guard lastValue & 0x03 == 0 else {
                throw JOSEError(.malformedBase64URL, "base64url text has non-zero trailing bits")
            }
            standard.append(UInt8(ascii: "="))
        default: break
        }
        guard let data = Data(base64Encoded: Data(standard)) else {
            throw JOSEError(.malformedBase64URL, "base64url text cannot be decoded")
        }
        return [UInt8](data)
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte == UInt8(ascii: "=") { return "padding (=), which JOSE forbids" }
        if byte >= 0x21 && byte < 0x7F { return "the character '\(Character(Unicode.Scalar(byte)))'" }
        return "the byte 0x\(String(byte, radix: 16))"
    }
}
