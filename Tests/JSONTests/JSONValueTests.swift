import JSON
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    /// Booleans, integers, doubles, strings, null, arrays and objects keep their JSON types.
    @Test("parses every JSON type")
    func parsesEveryType() throws {
        let value = try JSONValue.parse(#"{"b":true,"i":42,"d":1.5,"s":"x","n":null,"a":[1,"two"],"o":{}}"#)
        #expect(value["b"] == .bool(true))
        #expect(value["i"] == .int(42))
        #expect(value["d"] == .double(1.5))
        #expect(value["s"] == .string("x"))
        #expect(value["n"] == .null)
        #expect(value["a"] == .array([.int(1), .string("two")]))
        #expect(value["o"] == .object([:]))
    }

    /// A boolean is never read as a number nor a number as a boolean (Apple sends both kinds).
    @Test("keeps booleans and numbers apart")
    func booleansAreNotNumbers() throws {
        #expect(try JSONValue.parse("[true, 1, 0, false]") == [true, 1, 0, false])
        #expect(try JSONValue.parse("1").boolValue == nil)
        #expect(try JSONValue.parse("true").int64Value == nil)
    }

    /// Serialisation sorts keys and escapes what RFC 8259 requires, so equal values give equal bytes.
    @Test("serialises deterministically with sorted keys and escapes")
    func serialisesDeterministically() {
        let value: JSONValue = ["z": 1, "a": "quote\" back\\ nl\n tab\t ctl\u{01}", "m": [true, nil, 2.5]]
        #expect(
            value.serializedString()
                == #"{"a":"quote\" back\\ nl\n tab\t ctl\u0001","m":[true,null,2.5],"z":1}"#)
    }

    /// Escapes at the start, the end and side by side, every control character, and multi-byte
    /// UTF-8 between them; `/` and non-ASCII are written as they are.
    @Test("escapes around unescaped runs")
    func escapesAroundRuns() throws {
        #expect(JSONValue.string("\"a\\").serializedString() == #""\"a\\""#)
        #expect(JSONValue.string("\n\r\t\u{08}\u{0C}").serializedString() == #""\n\r\t\b\f""#)
        #expect(JSONValue.string("\u{00}é/\u{1F}🍏").serializedString() == "\"\\u0000é/\\u001f🍏\"")
        #expect(JSONValue.string("").serializedString() == #""""#)
        let every = String(decoding: (0..<0x80).map { UInt8($0) } + Array("ü€🍏".utf8), as: UTF8.self)
        #expect(try JSONValue.parse(JSONValue.string(every).serialized()) == .string(every))
    }

    /// An object from a member list serialises as the same object from a dictionary.
    @Test("object from a member list")
    func objectFromMembers() {
        let members: [(key: String, value: JSONValue)] = [
            ("sub", "u"), ("aud", ["a", "b"]), ("é", 1), ("Z", nil), ("email_verified", true),
            ("email", "a@b"), ("cnf", ["jkt": "x\"y"]), ("", 2.5),
        ]
        let expected = JSONValue.object(Dictionary(uniqueKeysWithValues: members)).serialized()
        #expect(JSONValue.serializedObject(members) == expected)
        #expect(JSONValue.serializedObject([]) == Array("{}".utf8))
    }

    /// Whatever is serialised parses back to the same value.
    @Test("round-trips through text")
    func roundTrips() throws {
        let value: JSONValue = ["name": "Zoë 🍏", "n": -7, "list": [["deep": false]], "f": 0.125]
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(try JSONValue.parse(value.prettyPrinted()) == value)
    }

    /// Malformed, empty, truncated and oversized input are typed errors, not crashes.
    @Test("refuses bad input with typed errors", arguments: ["", "{", "{\"a\":}", "[1,]", "nul", "\"\\x\""])
    func refusesBadInput(text: String) {
        #expect(throws: JSONError.self) { try JSONValue.parse(text) }
    }

    /// The size bound is enforced before decoding.
    @Test("enforces the size limit")
    func enforcesSizeLimit() {
        let big = "[" + String(repeating: "1,", count: 100) + "1]"
        do {
            _ = try JSONValue.parse(big, maximumSize: 50)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .tooLarge)
        }
    }

    /// Invalid UTF-8 is refused.
    @Test("refuses invalid UTF-8")
    func refusesInvalidUTF8() {
        #expect(throws: JSONError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    /// `parseObject` insists on an object.
    @Test("parseObject refuses non-objects")
    func parseObjectRefusesArrays() {
        #expect(throws: JSONError.self) { try JSONValue.parseObject(Array("[1]".utf8)) }
    }
}

@Suite("JSON parser strictness")
struct JSONParserStrictnessTests {
    /// Each of these is invalid under RFC 8259 (or refused on purpose) and names where it fails.
    @Test(
        "refuses what RFC 8259 does not allow",
        arguments: [
            ("[1,]", "trailing comma"), ("{\"a\":1,}", "trailing comma"),
            ("{\"a\":1,\"a\":2}", "duplicate member"),
            ("01", "leading zeros"), ("1.", "digits after"), ("1e", "exponent"), ("-", "invalid number"),
            ("\"\\ud800\"", "lone surrogate"), ("\"a\u{01}\"", "control character"),
            ("\"\\q\"", "invalid escape"),
            ("[1] x", "after the JSON value"), ("1e999", "out of range"), ("'a'", "expected a JSON value"),
            ("{a:1}", "member name"), ("\"abc", "unterminated"), ("tru", "end of JSON"),
        ])
    func refuses(text: String, reason: String) {
        do {
            _ = try JSONValue.parse(text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.message.contains(reason), "\(text): \(error.message)")
            #expect(error.line != nil)
        }
    }

    /// Errors point at the line and column of the problem.
    @Test("error positions")
    func positions() {
        do {
            _ = try JSONValue.parse("{\n  \"a\": 1,\n  \"b\": tru\n}")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
        }
    }

    /// Escapes, surrogate pairs, big integers, exponents and a leading BOM are read correctly.
    @Test("reads the full grammar")
    func grammar() throws {
        #expect(try JSONValue.parse(#""\u00e9\ud83c\udf4f\n\/""#) == .string("é🍏\n/"))
        #expect(try JSONValue.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse("-0.5e2") == .double(-50))
        #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF, 0x31]) == .int(1))
        #expect(try JSONValue.parse(" \t\r\n[ ] ") == .array([]))
    }

    /// Nesting is bounded, so a hostile document cannot exhaust the stack.
    @Test("deep nesting is refused")
    func deepNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONError.self) { _ = try JSONValue.parse(deep) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSONValue.parse(fine)) != nil)
    }
}
