/// Base64 with the URL and filename safe alphabet and no padding (RFC 7515 §2, RFC 4648 §5).
///
/// Hand-written over buffers rather than Foundation's base64 with the alphabet mapped, because
/// every token the issuer signs or reads goes through here. It buys 6-13% of
/// `scripts/bench issuer-core`'s whole refresh grant: 80-107 µs a refresh, 90-118 µs with
/// Foundation's (three alternating runs, docs/benchmarks.md).
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
        let count = utf8.count
        // Every 4 characters carry 3 bytes; a final group of 2 or 3 carries 1 or 2.
        let decodedLength = count / 4 * 3 + max(count % 4 - 1, 0)
        var outcome: Result<Int, DecodingFailure> = .success(0)
        let bytes = [UInt8](unsafeUninitializedCapacity: decodedLength) { buffer, written in
            // Over a buffer, with the table read once: not a generic UTF-8 view, and not the
            // static table's accessor per character.
            outcome = decodeTable.withUnsafeBufferPointer { table in
                utf8.withContiguousStorageIfAvailable { decode($0, into: buffer, table: table) }
                    ?? Array(utf8).withUnsafeBufferPointer { decode($0, into: buffer, table: table) }
            }
            written = (try? outcome.get()) ?? 0
        }
        switch outcome {
        case .success: return bytes
        case .failure(.trailingBits):
            throw JOSEError(.malformedBase64URL, "base64url text has non-zero trailing bits")
        case .failure(.character(let byte)):
            throw JOSEError(.malformedBase64URL, "base64url text contains \(describe(byte))")
        }
    }

    private enum DecodingFailure: Error {
        case character(UInt8)
        case trailingBits
    }

    /// Decodes `source` into `buffer`, which has room for all of it; returns the bytes written.
    private static func decode(
        _ source: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>,
        table: UnsafeBufferPointer<UInt8>
    ) -> Result<Int, DecodingFailure> {
        var accumulator: UInt32 = 0
        var pending = 0
        var output = 0
        var lastValue: UInt32 = 0
        for byte in source {
            let value = UInt32(table[Int(byte)])
            guard value < 64 else { return .failure(.character(byte)) }
            lastValue = value
            accumulator = accumulator << 6 | value
            pending += 1
            if pending == 4 {
                buffer[output] = UInt8(truncatingIfNeeded: accumulator >> 16)
                buffer[output + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                buffer[output + 2] = UInt8(truncatingIfNeeded: accumulator)
                output += 3
                accumulator = 0
                pending = 0
            }
        }
        // RFC 4648 §3.5: the unused bits of the last character must be zero for a canonical
        // encoding.
        switch pending {
        case 2:
            guard lastValue & 0x0F == 0 else { return .failure(.trailingBits) }
            buffer[output] = UInt8(truncatingIfNeeded: accumulator >> 4)
            output += 1
        case 3:
            guard lastValue & 0x03 == 0 else { return .failure(.trailingBits) }
            buffer[output] = UInt8(truncatingIfNeeded: accumulator >> 10)
            buffer[output + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
            output += 2
        default: break
        }
        return .success(output)
    }

    /// The value of each base64url character (RFC 4648 §5, Table 2); 0xFF for any other byte.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.withUTF8Buffer(Array.init).enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    private static func describe(_ byte: UInt8) -> String {
        if byte == UInt8(ascii: "=") { return "padding (=), which JOSE forbids" }
        if byte >= 0x21 && byte < 0x7F { return "the character '\(Character(Unicode.Scalar(byte)))'" }
        return "the byte 0x\(String(byte, radix: 16))"
    }
}
