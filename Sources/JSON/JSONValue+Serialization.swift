/// Serialisation of `JSONValue` to RFC 8259 text.
///
/// Hand-written rather than `JSONEncoder` because it sits on the hot path of every JWT the
/// issuer signs, and because it must be byte-for-byte stable: keys sorted by their UTF-8
/// bytes, no insignificant white space in compact form, `/` not escaped.
extension JSONValue {
    /// Compact UTF-8 bytes with sorted keys.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output, indent: nil, level: 0)
        return output
    }

    /// Compact text with sorted keys.
    public func serializedString() -> String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// The compact bytes of an object given as a list of members: the same bytes as
    /// `JSONValue.object(Dictionary(uniqueKeysWithValues: members)).serialized()`, without
    /// building and hashing a dictionary only to sort its keys again. For the few-member objects
    /// made on hot paths (JWT headers and claims, token responses). Keys must be unique.
    public static func serializedObject(_ members: consuming [(key: String, value: JSONValue)]) -> [UInt8] {
        var members = members
        members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        assert(zip(members, members.dropFirst()).allSatisfy { $0.key != $1.key }, "duplicate key")
        // Sized up front: a JWT's claims or a token response would otherwise grow the buffer
        // three or four times.
        var capacity = 2
        for member in members {
            capacity += member.key.utf8.count + 4
            if case .string(let text) = member.value {
                capacity += text.utf8.count + 2
            } else {
                capacity += 24
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(capacity)
        output.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.writeString(member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            member.value.write(into: &output, indent: nil, level: 1)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Indented text (two spaces) with sorted keys, for people.
    public func prettyPrinted() -> String {
        var output: [UInt8] = []
        write(into: &output, indent: 2, level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(into output: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): JSONValue.writeNumber(value, into: &output)
        case .string(let value): JSONValue.writeString(value, into: &output)
        case .array(let elements):
            if elements.isEmpty {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.newline(into: &output, indent: indent, level: level + 1)
                element.write(into: &output, indent: indent, level: level + 1)
            }
            JSONValue.newline(into: &output, indent: indent, level: level)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, (key, value)) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.newline(into: &output, indent: indent, level: level + 1)
                JSONValue.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(UInt8(ascii: " ")) }
                value.write(into: &output, indent: indent, level: level + 1)
            }
            JSONValue.newline(into: &output, indent: indent, level: level)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(into output: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    private static func writeNumber(_ value: Double, into output: inout [UInt8]) {
        guard value.isFinite else {
            // RFC 8259 has no NaN or infinity; null is what JavaScript's JSON.stringify writes.
            output.append(contentsOf: "null".utf8)
            return
        }
        if value.rounded() == value, let exact = Int64(exactly: value) {
            output.append(contentsOf: String(exact).utf8)
        } else {
            output.append(contentsOf: "\(value)".utf8)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes a string with the escapes RFC 8259 §7 requires (quote, backslash, controls).
    ///
    /// Runs of bytes that need no escape (all of a token, a URL, a base64url value) are copied
    /// with one `append(contentsOf:)` rather than byte by byte.
    static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                    continue
                }
                if runStart < index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0x08: output.append(contentsOf: [0x5C, UInt8(ascii: "b")])
                case 0x0C: output.append(contentsOf: [0x5C, UInt8(ascii: "f")])
                default:
                    output.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            if runStart < bytes.count {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
