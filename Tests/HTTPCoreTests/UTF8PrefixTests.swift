import HTTPCore
import Testing

@Suite("String.utf8Prefix")
struct UTF8PrefixTests {
    /// Every cut of a text with one- to four-byte characters is valid text, as long as it can be,
    /// and a prefix of the original.
    @Test("a cut never splits a character")
    func cutsBetweenScalars() {
        let text = "aé€😀b"  // 1 + 2 + 3 + 4 + 1 bytes
        let expected = ["", "a", "a", "aé", "aé", "aé", "aé€", "aé€", "aé€", "aé€", "aé€😀", "aé€😀b"]
        for limit in 0...11 {
            #expect(text.utf8Prefix(limit) == expected[limit], "limit \(limit)")
        }
        #expect(text.utf8Prefix(100) == text)
        #expect(String(repeating: "a", count: 510).appending("é").utf8Prefix(511).utf8.count == 510)
    }
}
