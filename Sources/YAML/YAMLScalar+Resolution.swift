extension YAMLScalar {
    /// The scalar's meaning under the YAML 1.2 core schema (YAML 1.2 §10.3.2).
    ///
    /// - Untagged plain scalars: `null`, `Null`, `NULL`, `~` and the empty scalar are null; `true`,
    ///   `True`, `TRUE` and the same for false are booleans; `[-+]?[0-9]+`, `0x…` and `0o…` are
    ///   integers; decimals with a fraction or exponent, `.inf`, `-.inf` and `.nan` are doubles;
    ///   anything else is a string. An integer that does not fit `Int64` stays a string so that no
    ///   digit is lost.
    /// - Quoted and block scalars, and those tagged `!!str` or `!`, are strings.
    /// - `!!null`, `!!bool`, `!!int` and `!!float` force that type; the parser refuses text that does
    ///   not fit, so such a scalar falls back to a string only when it was built by hand.
    /// - Any other tag leaves the text as a string; `tag` tells the caller what was meant.
    public var resolved: YAMLValue {
        Self.resolve(value, style: style, tag: tag) ?? .string(value)
    }

    /// The value under `tag`, or nil when the text is not a valid instance of that core type.
    static func resolve(_ text: String, style: Style, tag: String?) -> YAMLValue? {
        switch tag {
        case nil:
            return style == .plain ? CoreSchema.resolvePlain(text) : .string(text)
        case YAMLTag.str, YAMLTag.nonSpecific:
            return .string(text)
        case YAMLTag.null:
            return CoreSchema.isNull(text) ? .null : nil
        case YAMLTag.bool:
            return CoreSchema.bool(text).map(YAMLValue.bool)
        case YAMLTag.int:
            return CoreSchema.int(text).map(YAMLValue.int)
        case YAMLTag.float:
            return CoreSchema.double(text).map(YAMLValue.double)
        case YAMLTag.merge:
            return text == "<<" ? .string(text) : nil
        case YAMLTag.seq, YAMLTag.map:
            return nil
        default:
            return .string(text)
        }
    }
}

/// The regular expressions of the YAML 1.2 core schema, matched by hand over UTF-8.
enum CoreSchema {
    static func resolvePlain(_ text: String) -> YAMLValue {
        if isNull(text) { return .null }
        if let value = bool(text) { return .bool(value) }
        if isIntegerForm(text) {
            if let value = int(text) { return .int(value) }
            return .string(text)
        }
        if let value = double(text) { return .double(value) }
        return .string(text)
    }

    static func isNull(_ text: String) -> Bool {
        switch text {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }

    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// `[-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+`, whether or not the value fits `Int64`.
    static func isIntegerForm(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            if bytes[1] == UInt8(ascii: "o") { return bytes[2...].allSatisfy(isOctalDigit) }
            if bytes[1] == UInt8(ascii: "x") { return bytes[2...].allSatisfy(isHexDigit) }
        }
        let digits = bytes.first.map(isSign) == true ? bytes.dropFirst() : bytes[...]
        return !digits.isEmpty && digits.allSatisfy(isDigit)
    }

    /// An integer in one of the core forms that fits `Int64`.
    static func int(_ text: String) -> Int64? {
        guard isIntegerForm(text) else { return nil }
        if text.hasPrefix("0o") { return Int64(text.dropFirst(2), radix: 8) }
        if text.hasPrefix("0x") { return Int64(text.dropFirst(2), radix: 16) }
        return Int64(text, radix: 10)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?\.(inf|Inf|INF)` or `\.(nan|NaN|NAN)`.
    static func double(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        guard isDecimalFloatForm(text) else { return nil }
        return Double(text)
    }

    private static func isDecimalFloatForm(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        if let first = bytes.first, isSign(first) { bytes = bytes.dropFirst() }
        let integerDigits = bytes.prefix(while: isDigit).count
        bytes = bytes.dropFirst(integerDigits)
        var fractionDigits = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix(while: isDigit).count
            bytes = bytes.dropFirst(fractionDigits)
        }
        // `.` alone, `.e5` and the empty string are not numbers.
        guard integerDigits > 0 || fractionDigits > 0 else { return false }
        if let first = bytes.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, isSign(sign) { bytes = bytes.dropFirst() }
            let exponentDigits = bytes.prefix(while: isDigit).count
            guard exponentDigits > 0 else { return false }
            bytes = bytes.dropFirst(exponentDigits)
        }
        return bytes.isEmpty
    }

    private static func isSign(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isOctalDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
