import JSON
import WorldVocabulary
import YAML

/// Reads JSON text that `JSONValue.parse` has already accepted a second time, to learn where
/// each value starts, and gives it back as a marked `YAMLNode` tree.
///
/// Only token boundaries are found here; each scalar token's meaning (escapes, numbers) is
/// decoded by the JSON module itself, so the two readings cannot disagree on content. Scalars
/// carry explicit core-schema tags, so a JSON string `"60"` stays a string and `60` an integer.
/// Re-parsing with libyaml instead would refuse some valid JSON (surrogate-pair escapes, keys
/// over 1024 characters).
struct JSONPositionReader {
    private let bytes: [UInt8]
    private let fileName: String
    private var index = 0
    private var line = 1
    private var column = 1

    private init(bytes: [UInt8], fileName: String) {
        self.bytes = bytes
        self.fileName = fileName
    }

    /// The marked tree of valid JSON text.
    static func tree(of bytes: [UInt8], fileName: String) throws(TenantError) -> YAMLNode {
        var reader = JSONPositionReader(bytes: bytes, fileName: fileName)
        if TextPositions.hasByteOrderMark(bytes) { reader.index = 3 }
        return try reader.value()
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private var mark: YAMLMark { YAMLMark(line: line, column: column) }

    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count && Self.isWhitespace(bytes[index]) { advance() }
    }

    /// Consumes `byte` after optional whitespace; `false` (nothing consumed) when it is not next.
    private mutating func consume(_ byte: Character) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte.asciiValue else { return false }
        advance()
        return true
    }

    /// The text was validated before, so this means the two readers disagree: a bug, reported
    /// rather than trapped on.
    private func inconsistency() -> TenantError {
        TenantError(
            fileName: fileName, line: line, column: column,
            message: "internal error: cannot locate the JSON value here")
    }

    private mutating func value() throws(TenantError) -> YAMLNode {
        skipWhitespace()
        guard index < bytes.count else { throw inconsistency() }
        let start = mark
        if consume("{") {
            var pairs: [YAMLPair] = []
            if consume("}") { return .mapping(YAMLMapping(pairs, style: .flow, mark: start)) }
            repeat {
                skipWhitespace()
                let key = YAMLNode.scalar(try scalar())
                guard consume(":") else { throw inconsistency() }
                pairs.append(YAMLPair(key: key, value: try value()))
            } while consume(",")
            guard consume("}") else { throw inconsistency() }
            return .mapping(YAMLMapping(pairs, style: .flow, mark: start))
        }
        if consume("[") {
            var items: [YAMLNode] = []
            if consume("]") { return .sequence(YAMLSequence(items, style: .flow, mark: start)) }
            repeat {
                items.append(try value())
            } while consume(",")
            guard consume("]") else { throw inconsistency() }
            return .sequence(YAMLSequence(items, style: .flow, mark: start))
        }
        return .scalar(try scalar())
    }

    /// A string, number, `true`, `false` or `null` token, decoded by the JSON module.
    private mutating func scalar() throws(TenantError) -> YAMLScalar {
        let start = mark
        let startIndex = index
        guard index < bytes.count else { throw inconsistency() }
        if bytes[index] == UInt8(ascii: "\"") {
            advance()
            while index < bytes.count {
                let byte = bytes[index]
                advance()
                if byte == UInt8(ascii: "\\") {
                    if index < bytes.count { advance() }
                } else if byte == UInt8(ascii: "\"") {
                    break
                }
            }
        } else {
            while index < bytes.count && !Self.endsBareToken(bytes[index]) { advance() }
        }
        let decoded: JSONValue
        do {
            decoded = try JSONValue.parse(bytes[startIndex..<index])
        } catch {
            throw inconsistency()
        }
        switch decoded {
        case .string(let text): return YAMLScalar(text, style: .doubleQuoted, tag: YAMLTag.str, mark: start)
        case .int(let number): return YAMLScalar(String(number), tag: YAMLTag.int, mark: start)
        case .double(let number): return YAMLScalar(String(number), tag: YAMLTag.float, mark: start)
        case .bool(let flag): return YAMLScalar(flag ? "true" : "false", tag: YAMLTag.bool, mark: start)
        case .null: return YAMLScalar("null", tag: YAMLTag.null, mark: start)
        case .array, .object: throw inconsistency()
        }
    }

    private static func endsBareToken(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]")
            || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ":")
    }
}
