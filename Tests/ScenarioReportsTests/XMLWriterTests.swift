import Testing

@testable import ScenarioReports

@Suite("XML writer")
struct XMLWriterTests {
    /// Markup characters become entities in text and attributes; white space survives in both.
    @Test("escapes text and attributes")
    func escapes() {
        #expect(XMLWriter.escapedText("a<b>&\"c\"'d'\n\t") == "a&lt;b&gt;&amp;\"c\"'d'\n\t")
        #expect(XMLWriter.escapedAttribute("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;")
        #expect(XMLWriter.escapedAttribute("x\ty\nz\r") == "x&#9;y&#10;z&#13;")
        #expect(XMLWriter.escapedText("Zoë 🍏 ü") == "Zoë 🍏 ü")
    }

    /// Characters XML 1.0 forbids are shown as visible escapes rather than written.
    @Test("replaces characters XML cannot hold")
    func forbiddenCharacters() {
        #expect(XMLWriter.escapedText("\u{00}\u{08}\u{0B}\u{1F}") == "\\u{0}\\u{8}\\u{B}\\u{1F}")
        #expect(XMLWriter.escapedText("\u{FFFE}\u{FFFF}\u{FFFD}") == "\\u{FFFE}\\u{FFFF}\u{FFFD}")
    }

    /// Elements nest with indentation, and empty ones close themselves.
    @Test("writes nested elements")
    func nesting() {
        var writer = XMLWriter()
        writer.open("a", [("n", "1")])
        writer.element("b")
        writer.element("c", [("k", "<")], text: "t&")
        let text = String(decoding: writer.finish(), as: UTF8.self)
        #expect(
            text == """
                <?xml version="1.0" encoding="UTF-8"?>
                <a n="1">
                  <b/>
                  <c k="&lt;">t&amp;</c>
                </a>

                """)
    }
}
