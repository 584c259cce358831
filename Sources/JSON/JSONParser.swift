/// A strict RFC 8259 parser.
///
/// Strict where Foundation's decoder is lenient: trailing commas, a duplicate member name
/// (RFC 7515 §5.2 lets a JWS consumer refuse them, and refusing closes a class of
/// header-smuggling tricks), lone surrogate escapes, unescaped control characters, numbers
/// that overflow to infinity, and anything after the value are all errors. Errors carry the
/// line and column, so a scenario file can be pointed at precisely.
struct JSONParser {
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ input: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes: input)
        // RFC 8259 §8.1: a parser may ignore a leading byte order mark.
        if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == input.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    // MARK: - Grammar

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of JSON text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describe(bytes[index])); expected a JSON value")
        }
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a member name in double quotes") }
            let keyStart = index
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: key) == nil else {
                index = keyStart
                throw error("duplicate member name \"\(key.prefix(64))\"")
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON text inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "}")) { throw error("trailing comma in an object") }
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}' in an object") }
            index += 1
            depth -= 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON text inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "]")) { throw error("trailing comma in an array") }
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']' in an array") }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    /// RFC 8259 §7.
    private mutating func parseString() throws(JSONError) -> String {
        let start = index
        index += 1
        let contentStart = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[contentStart..<index])
                guard let text = String(validating: slice, as: UTF8.self) else {
                    index = start
                    throw error("string is not valid UTF-8")
                }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            index += 1
        }
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    index = start
                    throw error("string is not valid UTF-8")
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    buffer.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    index -= 2
                    throw error("invalid escape sequence in a string")
                }
            default:
                // Copy the run up to the next quote or escape in one go.
                let runStart = index
                while index < bytes.count {
                    let next = bytes[index]
                    if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") { break }
                    if next < 0x20 { throw error("unescaped control character in a string") }
                    index += 1
                }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
        }
        index = start
        throw error("unterminated string")
    }

    /// `\uXXXX`, with surrogate pairs joined; a lone surrogate is an error.
    private mutating func parseUnicodeEscape() throws(JSONError) -> Unicode.Scalar {
        let escapeStart = index - 2
        let high = try hex4()
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            else {
                index = escapeStart
                throw error("lone surrogate in a \\u escape")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                index = escapeStart
                throw error("invalid surrogate pair in a \\u escape")
            }
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else {
                index = escapeStart
                throw error("invalid surrogate pair in a \\u escape")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else {
            index = escapeStart
            throw error("lone surrogate in a \\u escape")
        }
        return scalar
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var isInteger = true
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error("numbers must not have leading zeros")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("expected digits in the exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else {
            index = start
            throw error("number \(text.prefix(32)) is out of range")
        }
        return .double(double)
    }

    // MARK: - Helpers

    private mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= JSONParser.maximumDepth else {
            throw error("nesting deeper than \(JSONParser.maximumDepth) levels")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let length = literal.utf8CodeUnitCount
        guard index + length <= bytes.count else { throw error("unexpected end of JSON text") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        for offset in 0..<length where bytes[index + offset] != expected[offset] {
            throw error("unexpected \(describe(bytes[index])); expected a JSON value")
        }
        index += length
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// An error at the current position, with a 1-based line and column (columns count bytes).
    private func error(_ message: String) -> JSONError {
        let end = min(index, bytes.count)
        var line = 1
        var lineStart = 0
        for offset in 0..<end where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        return JSONError(.malformed, message, line: line, column: end - lineStart + 1)
    }
}
