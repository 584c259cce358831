import Testing
import YAML

@Suite("Scalars and their core-schema resolution")
struct YAMLScalarResolutionTests {
    /// Each of the five scalar styles keeps its text, style and start mark.
    @Test("scalar styles")
    func scalarStyles() throws {
        let text = """
            plain: hello world
            single: 'it''s here'
            double: "tab\\there \\u00e9"
            literal: |
              line one
                indented
            folded: >
              folded
              text

              new paragraph
            stripped: |-
              no final break
            """
        let document = try root(text)
        let expected: [(String, String, YAMLScalar.Style, YAMLMark)] = [
            ("plain", "hello world", .plain, mark(1, 8)),
            ("single", "it's here", .singleQuoted, mark(2, 9)),
            ("double", "tab\there é", .doubleQuoted, mark(3, 9)),
            ("literal", "line one\n  indented\n", .literal, mark(4, 10)),
            ("folded", "folded text\nnew paragraph\n", .folded, mark(7, 9)),
            ("stripped", "no final break", .literal, mark(12, 11)),
        ]
        for (key, value, style, start) in expected {
            let scalar = try #require(document[key]?.scalar, "\(key)")
            #expect(scalar.value == value, "\(key)")
            #expect(scalar.style == style, "\(key)")
            #expect(scalar.mark == start, "\(key)")
            #expect(scalar.tag == nil, "\(key)")
        }
    }

    static let plainCases: [(String, YAMLValue)] = [
        ("null", .null), ("Null", .null), ("NULL", .null), ("~", .null),
        ("true", .bool(true)), ("True", .bool(true)), ("TRUE", .bool(true)),
        ("false", .bool(false)), ("False", .bool(false)), ("FALSE", .bool(false)),
        ("yes", .string("yes")), ("on", .string("on")), ("tRUE", .string("tRUE")),
        ("42", .int(42)), ("-17", .int(-17)), ("+5", .int(5)), ("007", .int(7)), ("0", .int(0)),
        ("0x1F", .int(31)), ("0xff", .int(255)), ("0o17", .int(15)),
        ("9223372036854775807", .int(Int64.max)), ("-9223372036854775808", .int(Int64.min)),
        ("9223372036854775808", .string("9223372036854775808")), ("0o8", .string("0o8")),
        ("0x", .string("0x")), ("0b101", .string("0b101")), ("1_000", .string("1_000")),
        ("1.5", .double(1.5)), ("-2.5e3", .double(-2500)), (".5", .double(0.5)), ("1.", .double(1)),
        ("1e3", .double(1000)), ("+1.0E-2", .double(0.01)), (".inf", .double(.infinity)),
        ("+.INF", .double(.infinity)), ("-.Inf", .double(-.infinity)),
        ("1.2.3", .string("1.2.3")), ("1e", .string("1e")), (".", .string(".")), ("inf", .string("inf")),
        ("2001-12-14", .string("2001-12-14")), ("hello", .string("hello")),
    ]

    /// Untagged plain scalars resolve as the YAML 1.2 core schema says.
    @Test("plain scalar resolution", arguments: plainCases)
    func plainResolution(text: String, expected: YAMLValue) throws {
        #expect(try root("value: \(text)")["value"]?.resolved == expected)
    }

    /// `.nan` resolves to a NaN double (checked apart since NaN is unequal to itself).
    @Test("nan")
    func notANumber() throws {
        for text in [".nan", ".NaN", ".NAN"] {
            guard case .double(let value)? = try root(text).resolved else {
                Issue.record("\(text) did not resolve to a double")
                continue
            }
            #expect(value.isNaN)
        }
    }

    /// An empty value is null.
    @Test("empty value is null")
    func emptyValueIsNull() throws {
        let document = try root("a:\nb: ~\n")
        #expect(document["a"]?.resolved == .null)
        #expect(document["a"]?.isNull == true)
        #expect(document["b"]?.isNull == true)
    }

    /// Quoted and block scalars are strings whatever they look like.
    @Test("quoted scalars are strings")
    func quotedScalarsAreStrings() throws {
        let document = try root("a: 'true'\nb: \"42\"\nc: \"null\"\nd: ''\ne: |\n  42\n")
        #expect(document["a"]?.resolved == .string("true"))
        #expect(document["b"]?.resolved == .string("42"))
        #expect(document["c"]?.resolved == .string("null"))
        #expect(document["d"]?.resolved == .string(""))
        #expect(document["e"]?.resolved == .string("42\n"))
    }

    /// Explicit core tags force the type, and the full tag is kept on the node.
    @Test("explicit tags")
    func explicitTags() throws {
        let document = try root(
            """
            str: !!str 42
            int: !!int "42"
            float: !!float 1
            bool: !!bool True
            nothing: !!null ~
            custom: !account 7
            bang: ! 12
            """)
        #expect(document["str"]?.resolved == .string("42"))
        #expect(document["str"]?.tag == YAMLTag.str)
        #expect(document["int"]?.resolved == .int(42))
        #expect(document["int"]?.scalar?.style == .doubleQuoted)
        #expect(document["float"]?.resolved == .double(1))
        #expect(document["bool"]?.resolved == .bool(true))
        #expect(document["nothing"]?.resolved == .null)
        #expect(document["custom"]?.resolved == .string("7"))
        #expect(document["custom"]?.tag == "!account")
        #expect(document["bang"]?.resolved == .string("12"))
        #expect(document["bang"]?.tag == YAMLTag.nonSpecific)
    }

    /// A core tag on text that is not of that type is refused at the node's mark.
    @Test(
        "mistyped tags are refused",
        arguments: [
            ("a: !!int abc", 1, 4), ("a: !!bool yes", 1, 4), ("a: !!float 0x10", 1, 4),
            ("a: !!null 0", 1, 4), ("a: !!int 9223372036854775808", 1, 4), ("x:\n  - !!map scalar", 2, 5),
            ("a: !!str [1]", 1, 4), ("a: !!seq {b: 1}", 1, 4), ("a: !!map [1]", 1, 4),
        ])
    func mistypedTags(text: String, line: Int, column: Int) throws {
        let error = try #require(failure { _ = try YAMLParser.parse(text) })
        #expect(error.code == .invalidTaggedValue)
        #expect(error.mark == mark(line, column))
    }

    /// A scalar built by hand with a tag its text does not fit falls back to its text.
    @Test("hand-built mistyped scalar resolves to its text")
    func handBuiltScalar() {
        let scalar = YAMLScalar("abc", tag: YAMLTag.int, mark: mark(1, 1))
        #expect(scalar.resolved == .string("abc"))
    }
}
