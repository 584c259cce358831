import Testing
import YAML

@Suite("Errors name the file, line and column")
struct YAMLErrorTests {
    static let syntaxCases: [(String, Int, Int, String)] = [
        // A key indented under a scalar value.
        ("a: 1\n  b: 2\n", 2, 4, "mapping values are not allowed in this context"),
        // A mapping key where the block sequence expects another `-`.
        (
            "- a\nb: 1\n", 2, 1,
            "did not find expected '-' indicator (while parsing a block collection at line 1, column 1)"
        ),
        // An unclosed double quote runs to the end of the text.
        (
            "name: \"alice\nnext: 1\n", 3, 1,
            "found unexpected end of stream (while scanning a quoted scalar at line 1, column 7)"
        ),
        // An unclosed single quote, no final line break: the end is on the last line.
        (
            "a: 'x", 1, 6,
            "found unexpected end of stream (while scanning a quoted scalar at line 1, column 4)"
        ),
        // A tab used for indentation.
        (
            "a:\n\tb: 1\n", 2, 1,
            "found character that cannot start any token (while scanning for the next token)"
        ),
        (
            "a:\n  b: 1\n\tc: 2\n", 3, 1,
            "found a tab character that violates indentation (while scanning a plain scalar at line 2, column 6)"
        ),
        // An unclosed flow sequence.
        (
            "a: [1, 2\n", 2, 1,
            "did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 4)"
        ),
        ("a: b: c\n", 1, 5, "mapping values are not allowed in this context"),
        (
            "ok: 1\nbad: `x`\n", 2, 6,
            "found character that cannot start any token (while scanning for the next token)"
        ),
        // A control character, found by libyaml's reader (a byte offset, turned into a mark).
        ("a: 1\nb: \u{7}\n", 2, 4, "control characters are not allowed (U+0007)"),
    ]

    /// libyaml's problem and context come through with exact 1-based lines and columns.
    @Test("syntax error positions", arguments: syntaxCases)
    func syntaxErrorPositions(text: String, line: Int, column: Int, message: String) throws {
        let error = try #require(failure { _ = try YAMLParser.parse(text, fileName: "scenarios/x.yaml") })
        #expect(error.code == .syntax)
        #expect(error.mark == mark(line, column))
        #expect(error.message == message)
        #expect(error.fileName == "scenarios/x.yaml")
        #expect(error.description == "scenarios/x.yaml:\(line):\(column): error: \(message)")
    }

    /// The description leaves out what is not known: no file name, or no mark.
    @Test("description format")
    func descriptionFormat() {
        #expect(YAMLError(.syntax, "bad", mark: mark(2, 4)).description == "2:4: error: bad")
        #expect(YAMLError(.tooLarge, "big", fileName: "f.yaml").description == "f.yaml: error: big")
        #expect(YAMLError(.outOfMemory, "none").description == "error: none")
    }

    /// A duplicate key is refused at the second occurrence, and the message names the first.
    @Test("duplicate keys name both lines")
    func duplicateKeys() throws {
        let text = """
            steps:
              - action: refresh
                expect:
                  status: 200
                  claims: {}
                  status: 401
            """
        let error = try #require(failure { _ = try YAMLParser.parse(text, fileName: "s.yaml") })
        #expect(error.code == .duplicateKey)
        #expect(error.mark == mark(6, 7))
        #expect(error.message == "duplicate key 'status'; it was first defined at line 4, column 7")
        #expect(error.description.hasPrefix("s.yaml:6:7: error: duplicate key 'status'"))
    }

    /// Keys are compared by value: `0x1` and `1` collide, `1` and `"1"` do not, nor do flow keys apart.
    @Test("key identity")
    func keyIdentity() throws {
        let sameInt = try #require(failure { _ = try YAMLParser.parse("0x1: a\n1: b\n") })
        #expect(sameInt.code == .duplicateKey)
        #expect(sameInt.mark == mark(2, 1))
        #expect(try root("1: a\n\"1\": b\n").mapping?.count == 2)
        #expect(try root("? [a, b]\n: 1\n? [b, a]\n: 2\n").mapping?.count == 2)
        let sameSequence = try #require(
            failure { _ = try YAMLParser.parse("? [a, b]\n: 1\n? [a, b]\n: 2\n") })
        #expect(sameSequence.code == .duplicateKey)
        #expect(sameSequence.mark == mark(3, 3))
        let flow = try #require(failure { _ = try YAMLParser.parse("{a: 1, b: 2, a: 3}") })
        #expect(flow.mark == mark(1, 14))
        #expect(flow.message.contains("line 1, column 2"))
        let nulls = try #require(failure { _ = try YAMLParser.parse("~: a\nnull: b\n") })
        #expect(nulls.code == .duplicateKey)
    }

    /// Bytes that are not UTF-8 are refused with the place of the first bad byte.
    @Test("invalid UTF-8")
    func invalidUTF8() throws {
        let lone: [UInt8] = Array("a: ok\nb: ".utf8) + [0xFF] + Array("\n".utf8)
        let error = try #require(failure { _ = try YAMLParser.parse(lone, fileName: "t.yaml") })
        #expect(error.code == .invalidUTF8)
        #expect(error.mark == mark(2, 4))
        #expect(error.description.hasPrefix("t.yaml:2:4: error: "))

        let truncated: [UInt8] = Array("é: ".utf8) + [0xC3]
        let truncatedError = try #require(failure { _ = try YAMLParser.parseAll(truncated) })
        #expect(truncatedError.code == .invalidUTF8)
        #expect(truncatedError.mark == mark(1, 4))

        let overlong: [UInt8] = [0x61, 0x3A, 0x20, 0xC0, 0xAF]
        #expect(failure { _ = try YAMLParser.parse(overlong) }?.code == .invalidUTF8)
        let utf16: [UInt8] = [0xFF, 0xFE, 0x61, 0x00]
        #expect(failure { _ = try YAMLParser.parse(utf16) }?.code == .invalidUTF8)
    }
}
