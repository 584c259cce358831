/// Base64url without padding (RFC 4648 §5, as JOSE uses it), written straight into the bytes
/// of a `String` or a token being assembled.
///
/// Gives the same text as `JOSE.Base64URL.encode`, which goes through Foundation's `Data` and
/// several intermediate buffers; the token endpoint encodes a dozen values per request.
enum Base64URLWriter {
    private static let alphabet: StaticString =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// How many characters `count` bytes encode to.
    static func encodedLength(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// The encoding of `bytes` as a String.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let encode = { (source: UnsafeRawBufferPointer) -> String in
            String(unsafeUninitializedCapacity: encodedLength(source.count)) { write(source, into: $0) }
        }
        return bytes.withContiguousStorageIfAvailable { encode(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes(encode)
    }

    /// Writes the encoding of `source` at the start of `destination`, which must have room for
    /// `encodedLength(source.count)` bytes; returns that length.
    @discardableResult
    static func write(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableBufferPointer<UInt8>)
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
}
