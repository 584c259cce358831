import Foundation
import Scenario
import ScenarioReports
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("JUnit report")
struct JUnitReportTests {
    /// The whole document without timings matches the checked-in copy.
    @Test("matches the golden report")
    func matchesGolden() throws {
        try GoldenFile(named: "report.xml").check(JUnitReport.render(Fixtures.summary, includeTimings: false))
    }

    /// Totals on the root and per file, files in the order they first appear.
    @Test("counts per run and per file")
    func counts() throws {
        let document = try ParsedXML(JUnitReport.render(Fixtures.summary))
        let root = try #require(document.elements.first)
        #expect(root.name == "testsuites")
        #expect(root.attributes["tests"] == "4")
        #expect(root.attributes["failures"] == "1")
        #expect(root.attributes["skipped"] == "1")
        #expect(root.attributes["errors"] == "1")
        #expect(root.attributes["time"] == "3.457")
        let suites = document.elements.filter { $0.name == "testsuite" }
        #expect(suites.map { $0.attributes["name"] } == [Fixtures.loginFile, Fixtures.refreshFile])
        #expect(suites.map { $0.attributes["tests"] } == ["2", "2"])
        #expect(suites.map { $0.attributes["time"] } == ["1.623", "2.000"])
    }

    /// Each status maps to the element CI readers expect, and the seed is a property.
    @Test("failure, skipped, error and properties")
    func outcomes() throws {
        let document = try ParsedXML(JUnitReport.render(Fixtures.summary))
        let failure = try #require(document.elements.first { $0.name == "failure" })
        #expect(
            failure.attributes["message"]
                == "expect at scenarios/sign-in/basic.yaml:21:7: the session's error differs from what the scenario expects"
        )
        #expect(failure.attributes["type"] == "expect")
        #expect(failure.text.contains("expected: error invalid_nonce"))
        #expect(failure.text.contains("actual: signed in as alice@example.com"))
        let skipped = try #require(document.elements.first { $0.name == "skipped" })
        #expect(skipped.attributes["message"] == "the target issuer has no admin API")
        let error = try #require(document.elements.first { $0.name == "error" })
        #expect(error.attributes == ["message": "interrupted", "type": "interrupted"])
        let properties = document.elements.filter { $0.name == "property" }.map { $0.attributes }
        #expect(properties.contains(["name": "seed", "value": "42"]))
        #expect(properties.contains(["name": "shard", "value": "1/2"]))
    }

    /// Quotes, markup characters, control characters and non-ASCII in names and messages leave
    /// the document well-formed, and a parser reads back what was written.
    @Test("escapes hostile text")
    func escapesHostileText() throws {
        let name = "a \"quoted\" 'name' <tag> & more\tTab\nLine\r\u{01}\u{1B}[31m\u{7F} Zoë 🍏 \u{FFFE}"
        let file = "dir/<weird> & \"file\".yaml"
        let summary = RunSummary(results: [
            ScenarioResult(
                name: name, file: file, status: .failed,
                failure: StepFailure(
                    step: "expect<&>", location: SourceLocation(file: file, line: 1, column: 2),
                    message: "]]> <![CDATA[ &amp; \u{00}", expected: "<a>", actual: "\"b\" & 'c'"))
        ])
        let bytes = JUnitReport.render(summary)
        #expect(!bytes.contains(0x00) && !bytes.contains(0x01) && !bytes.contains(0x1B))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
        #expect(text.contains("&lt;tag&gt; &amp; more&#9;Tab&#10;Line&#13;\\u{1}\\u{1B}[31m"))

        let document = try ParsedXML(bytes)
        let testCase = try #require(document.elements.first { $0.name == "testcase" })
        #expect(
            testCase.attributes["name"]
                == "a \"quoted\" 'name' <tag> & more\tTab\nLine\r\\u{1}\\u{1B}[31m\u{7F} Zoë 🍏 \\u{FFFE}")
        #expect(testCase.attributes["file"] == file)
        let failure = try #require(document.elements.first { $0.name == "failure" })
        #expect(failure.attributes["type"] == "expect<&>")
        #expect(failure.text.contains("message: ]]> <![CDATA[ &amp; \\u{0}"))
        #expect(failure.text.contains("actual: \"b\" & 'c'"))
    }

    /// Files become dotted class names without their extension.
    @Test("class names from files")
    func classNames() {
        #expect(JUnitReport.className(forFile: "scenarios/sign-in/basic.yaml") == "scenarios.sign-in.basic")
        #expect(JUnitReport.className(forFile: "./a/../b.v2.yml") == "a.b.v2")
        #expect(JUnitReport.className(forFile: "plain") == "plain")
        #expect(JUnitReport.className(forFile: ".hidden") == ".hidden")
        #expect(JUnitReport.className(forFile: "") == "signinsim")
    }

    /// Without timings there is no `time` attribute at all, and two runs give the same bytes.
    @Test("leaves out timings when asked")
    func withoutTimings() {
        let bytes = JUnitReport.render(Fixtures.summary, includeTimings: false)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("time="))
        #expect(bytes == JUnitReport.render(Fixtures.retimedSummary, includeTimings: false))
    }
}

/// The elements of an XML document as a conforming parser (libxml2 through Foundation) reads
/// them: a document that is not well-formed throws.
struct ParsedXML {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text: String
    }

    var elements: [Element]

    init(_ bytes: [UInt8]) throws {
        let delegate = Collector()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = delegate
        guard parser.parse() else {
            throw ParseFailure(description: parser.parserError.map { "\($0)" } ?? "not well-formed")
        }
        elements = delegate.elements
    }

    struct ParseFailure: Error, CustomStringConvertible {
        var description: String
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String]
        ) {
            open.append(elements.count)
            elements.append(Element(name: elementName, attributes: attributes, text: ""))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let index = open.last { elements[index].text += string }
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName: String?
        ) {
            open.removeLast()
        }
    }
}
