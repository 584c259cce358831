import Foundation
import Testing
import WebAuthSession
import WorldVocabulary

@Suite("HTML forms")
struct HTMLFormTests {
    /// Foundation's literal search is the reference for `mentions(any:)`, on random
    /// button texts (ASCII, accented and combining characters, emoji, case changes) and the
    /// approve and deny words, whole, cut short, and cased oddly. The pieces include words less
    /// their last letter, so that a search that stops a byte early is caught.
    @Test("a button mentions a word as Foundation's search says")
    func mentionsMatchesFoundation() {
        let pieces = [
            "Approve", "ALLOW", "accept", "Authorise", "grant", "Deny", "cancel", "REJECT", "decline",
            "refuse",
            "appr", "ove", "approv", "den", "cance", "gran", "rejec", "allo", "declin", "x", " ", "-", "_",
            "é", "e\u{301}", "İ", "ß", "😀", "Continue", "Accès", "",
        ]
        let words =
            WebUserScript.approveWords + WebUserScript.denyWords + ["APPROVE", "cès", "i̇", "", "e\u{301}"]
        var generator = SystemRandomNumberGenerator()
        func text() -> String {
            (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)!
            }
            .joined()
        }
        for _ in 0..<3_000 {
            let button = HTMLSubmitButton(
                name: Bool.random(using: &generator) ? text() : nil, value: text(), label: text(), index: 0)
            let asked = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                words.randomElement(using: &generator)!
            }
            let texts = [button.name ?? "", button.value, button.label].map { $0.lowercased() }
            let expected = asked.contains { word in
                texts.contains { $0.range(of: word.lowercased(), options: .literal) != nil }
            }
            #expect(button.mentions(any: asked) == expected, "\(button) \(asked)")
        }
    }
}
