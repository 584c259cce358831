/// Finds places in raw input bytes, for problems found before libyaml has a mark for them.
enum TextPosition {
    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, if any.
    static func firstInvalidUTF8Offset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The line and column of a byte offset, counting as libyaml does: `\n`, `\r\n` and `\r` end
    /// lines, columns count Unicode scalars, and a leading byte-order mark is not a column.
    static func mark(ofByteOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var column = 1
        var index = 0
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte == UInt8(ascii: "\r") {
                if index + 1 >= bytes.count || bytes[index + 1] != UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                }
            } else if byte & 0xC0 != 0x80 {
                // A byte that starts a scalar, not a continuation byte.
                column += 1
            }
            index += 1
        }
        return YAMLMark(line: line, column: column)
    }

    /// How many Unicode scalars the text holds, not counting a leading byte-order mark, which is
    /// what libyaml's mark index counts.
    static func scalarCount(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let hasBOM = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        return bytes.reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) } - (hasBOM ? 1 : 0)
    }
}
