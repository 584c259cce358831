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
