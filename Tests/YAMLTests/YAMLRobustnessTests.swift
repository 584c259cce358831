import Testing
import YAML

@Suite("Robustness on hostile input")
struct YAMLRobustnessTests {
    /// SplitMix64: a small seeded generator, so a failing input can be reproduced.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seed = """
        name: &n "x"
        steps:
          - {a: 1, b: [*n, 'q']}
          - key: |
              text
            <<: {c: 2}
        ? complex
        : !!str 3
        """

    /// Thousands of mutated documents never crash, and every error's mark lies within the text.
    @Test("mutated input never crashes")
    func mutatedInputNeverCrashes() {
        var generator = SeededGenerator(state: 2024)
        let alphabet = Array(":-[]{},&*!|>'\"#?<\n\t \\%@`~0aé".utf8) + [0x00, 0xFF, 0xC3, 0x85]
        let original = Array(Self.seed.utf8)
        var failures = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
                default: if bytes.count > 1 { bytes.remove(at: index) }
                }
            }
            let lineCount = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
            if let error = failure({ _ = try YAMLParser.parseAll(bytes, fileName: "fuzz.yaml") }) {
                failures += 1
                guard let place = error.mark else {
                    Issue.record("no mark for \(error)")
                    continue
                }
                #expect((1...lineCount + 1).contains(place.line), "\(error)")
                #expect(place.column >= 1, "\(error)")
                #expect(error.fileName == "fuzz.yaml")
            }
        }
        // The mutations are meant to break the text; if none did, the test is not testing anything.
        #expect(failures > 300)
    }

    /// Truncating a valid document at every byte never crashes, and errors stay within the prefix.
    @Test("every prefix parses or fails cleanly")
    func everyPrefix() throws {
        let bytes = Array(Self.seed.utf8)
        var failedEnds: [Int] = []
        for end in 0...bytes.count {
            let prefix = bytes[..<end]
            guard let error = failure({ _ = try YAMLParser.parseAll(prefix) }) else { continue }
            failedEnds.append(end)
            let lineCount = prefix.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .count
            let place = try #require(error.mark, "\(error)")
            #expect((1...lineCount).contains(place.line), "prefix of \(end) bytes: \(error)")
        }
        // Cut inside `"x"` the quote is unclosed; the whole text parses.
        #expect(failedEnds.contains(10))
        #expect(!failedEnds.contains(bytes.count))
    }
}
