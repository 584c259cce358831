/// The `application/x-www-form-urlencoded` syntax of WHATWG URL §5 as queries and form bodies
/// use it, kept lenient: a report shows what was sent, so a malformed escape is shown as written
/// rather than refused.
enum FormURLCoding {
    /// One `name=value` pair with its raw text, so that an untouched pair can be written back
    /// byte for byte.
    struct Pair {
        var rawName: Substring
        /// Nil when the pair had no `=`.
        var rawValue: Substring?

        var name: String { FormURLCoding.decode(rawName) }
        var value: String { rawValue.map(FormURLCoding.decode) ?? "" }
    }

    /// The pairs of `text`, skipping empty ones (`a=1&&b=2`).
    static func pairs(_ text: Substring) -> [Pair] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return Pair(rawName: pair, rawValue: nil) }
            return Pair(rawName: pair[..<equals], rawValue: pair[pair.index(after: equals)...])
        }
    }

    /// Percent-decodes a component and reads `+` as a space. A `%` not followed by two hex
    /// digits stays literal; bytes that are not UTF-8 become U+FFFD.
    static func decode(_ component: Substring) -> String {
        let input = Array(component.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Percent-encodes everything but the unreserved characters of RFC 3986 §2.3, so that the
    /// result is valid in any query.
    static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
