import Testing
import YAML

@Suite("Limits on size, nesting and alias expansion")
struct YAMLLimitTests {
    /// The "billion laughs" document (10⁹ nodes once expanded) is refused quickly.
    @Test("alias bomb refused fast")
    func aliasBombRefusedFast() throws {
        var lines = ["a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"]
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for (previous, name) in zip(names, names.dropFirst()) {
            let refs = Array(repeating: "*\(previous)", count: 9).joined(separator: ",")
            lines.append("\(name): &\(name) [\(refs)]")
        }
        let text = lines.joined(separator: "\n")
        let clock = ContinuousClock()
        var error: YAMLError?
        let elapsed = clock.measure {
            error = failure { _ = try YAMLParser.parse(text, fileName: "bomb.yaml") }
        }
        let refused = try #require(error)
        #expect(refused.code == .tooManyNodes)
        #expect(refused.fileName == "bomb.yaml")
        #expect((refused.mark?.line ?? 0) >= 5)
        #expect(elapsed < .seconds(20))  // an unbounded expansion would take far longer
    }

    /// The node limit counts written nodes and alias copies alike, and can be set by the caller.
    @Test("node limit")
    func nodeLimit() throws {
        let list = "[" + Array(repeating: "1", count: 50).joined(separator: ", ") + "]"
        #expect(try YAMLParser.parse(list, maximumNodes: 51)?.sequence?.count == 50)
        let refused = try #require(failure { _ = try YAMLParser.parse(list, maximumNodes: 50) })
        #expect(refused.code == .tooManyNodes)
        let aliased = try #require(
            failure { _ = try YAMLParser.parse("a: &a [1, 2, 3]\nb: [*a, *a]\n", maximumNodes: 12) })
        #expect(aliased.code == .tooManyNodes)
        #expect(aliased.mark == mark(2, 9))
    }

    /// Nesting deeper than the limit is refused at the collection that crosses it; the limit itself is fine.
    @Test("deep nesting refused")
    func deepNestingRefused() throws {
        let allowed = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(try YAMLParser.parse(allowed) != nil)

        let flow = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let flowError = try #require(failure { _ = try YAMLParser.parse(flow) })
        #expect(flowError.code == .tooDeep)
        #expect(flowError.mark == mark(1, 257))

        var block = ""
        for level in 0..<40 { block += String(repeating: " ", count: level) + "k\(level):\n" }
        let blockError = try #require(failure { _ = try YAMLParser.parse(block, maximumDepth: 10) })
        #expect(blockError.code == .tooDeep)
        #expect(blockError.mark == mark(11, 11))
    }

    /// An alias whose content is deep counts its depth where it is used.
    @Test("deep alias refused")
    func deepAliasRefused() throws {
        let text = "a: &deep [[[[1]]]]\nb: [[[[*deep]]]]\n"
        #expect(try YAMLParser.parse(text, maximumDepth: 10) != nil)
        let error = try #require(failure { _ = try YAMLParser.parse(text, maximumDepth: 8) })
        #expect(error.code == .tooDeep)
        #expect(error.mark == mark(2, 8))
    }

    /// Text over the size limit is refused before parsing.
    @Test("size limit")
    func sizeLimit() throws {
        let text = "key: " + String(repeating: "x", count: 100)
        #expect(try YAMLParser.parse(text, maximumSize: 105) != nil)
        let error = try #require(
            failure { _ = try YAMLParser.parse(text, fileName: "big.yaml", maximumSize: 104) })
        #expect(error.code == .tooLarge)
        #expect(error.mark == nil)
        #expect(error.description == "big.yaml: error: the text is 105 bytes; the limit is 104")
    }
}
