import Foundation

/// Base64 with the URL and filename safe alphabet and no padding (RFC 7515 §2, RFC 4648 §5).
public enum Base64URL {
    /// Encodes bytes without `=` padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encodeToBytes(bytes), as: UTF8.self)
    }

    /// Encodes bytes to ASCII bytes without `=` padding.
    public static func encodeToBytes(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var encoded = [UInt8](Data(bytes).base64EncodedData())
        while encoded.last == UInt8(ascii: "=") { encoded.removeLast() }
        for index in encoded.indices {
            switch encoded[index] {
            case UInt8(ascii: "+"): encoded[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): encoded[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return encoded
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
