/// A small writer of indented XML 1.0 for output only: elements, attributes and text, each
/// escaped so that any string, however hostile, yields a well-formed document.
///
/// XML 1.0 §2.2 allows only tab, line feed, carriage return and U+0020 and above (without the
/// surrogates, U+FFFE and U+FFFF) even as character references, so the other characters are
/// written as a visible `\u{1B}` instead of being dropped: a failure message with an ANSI escape
/// stays readable and the document stays parseable.
struct XMLWriter {
    private(set) var bytes: [UInt8]
    private var openElements: [String] = []

    /// Starts a document with its declaration (XML 1.0 §2.8).
    init() {
        bytes = Array(#"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Opens an element whose children follow on their own lines.
    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        startTag(name, attributes)
        bytes.append(contentsOf: ">\n".utf8)
        openElements.append(name)
    }

    /// Closes the innermost open element.
    mutating func close() {
        let name = openElements.removeLast()
        indent()
        bytes.append(contentsOf: "</\(name)>\n".utf8)
    }

    /// Writes `<name …/>`, or `<name …>text</name>` when there is text.
    mutating func element(_ name: String, _ attributes: [(String, String)] = [], text: String? = nil) {
        startTag(name, attributes)
        guard let text else {
            bytes.append(contentsOf: "/>\n".utf8)
            return
        }
        bytes.append(UInt8(ascii: ">"))
        bytes.append(contentsOf: Self.escapedText(text).utf8)
        bytes.append(contentsOf: "</\(name)>\n".utf8)
    }

    /// Closes every element still open and returns the document.
    mutating func finish() -> [UInt8] {
        while !openElements.isEmpty { close() }
        return bytes
    }

    private mutating func startTag(_ name: String, _ attributes: [(String, String)]) {
        indent()
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: name.utf8)
        for (attribute, value) in attributes {
            bytes.append(contentsOf: " \(attribute)=\"".utf8)
            bytes.append(contentsOf: Self.escapedAttribute(value).utf8)
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private mutating func indent() {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * openElements.count))
    }

    /// Character data: `&`, `<` and `>` as entities (`>` for `]]>`, XML 1.0 §2.4), quotes and
    /// white space kept as written so that failure bodies stay readable in the raw file.
    static func escapedText(_ text: String) -> String {
        escaped(text, inAttribute: false)
    }

    /// An attribute value between double quotes, both quotes escaped. Tab, line feed and carriage return become
    /// character references because a parser would otherwise normalise them to spaces
    /// (XML 1.0 §3.3.3).
    static func escapedAttribute(_ value: String) -> String {
        escaped(value, inAttribute: true)
    }

    private static func escaped(_ text: String, inAttribute: Bool) -> String {
        var output = ""
        output.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"" where inAttribute: output += "&quot;"
            case "'" where inAttribute: output += "&apos;"
            case "\t", "\n", "\r":
                if inAttribute {
                    output += "&#\(scalar.value);"
                } else {
                    output.unicodeScalars.append(scalar)
                }
            default:
                if isAllowed(scalar) {
                    output.unicodeScalars.append(scalar)
                } else {
                    output += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                }
            }
        }
        return output
    }

    /// XML 1.0 §2.2 `Char`, less the three white-space controls handled by the caller.
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
