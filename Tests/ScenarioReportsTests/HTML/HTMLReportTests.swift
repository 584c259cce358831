import Foundation
import JSON
import Scenario
import Testing

@testable import ScenarioReports

/// The HTML report: one self-contained page, escaped, with a diagram per traced scenario.
@Suite struct HTMLReportTests {
    static func page(traced: Bool = true) -> String {
        var summary = Fixtures.summary
        summary.results[0].name = "signs in </script><script>alert(1)</script>"
        let traces =
            traced
            ? [summary.results[0].key: ScenarioTrace(exchanges: Fixtures.exchanges, recording: nil)] : [:]
        return String(
            decoding: HTMLReport.render(summary, traces: traces, commandLine: "signinsim run -e PASSWORD=…"),
            as: UTF8.self)
    }

    @Test func nothingLeavesThePage() {
        let page = Self.page()
        #expect(page.contains("Content-Security-Policy\" content=\"default-src 'none'"))
        for external in ["<link", " src=", "@import", "url(http", "href=\"http"] {
            #expect(!page.contains(external), "\(external)")
        }
    }

    @Test func textFromTheRunIsEscaped() {
        let page = Self.page()
        #expect(!page.contains("<script>alert(1)"))
        #expect(page.contains("signs in &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        // Each JSON island parses back whole, however its bodies end.
        let islands = page.components(separatedBy: "<script type=\"application/json\" id=\"").dropFirst()
        #expect(islands.count == 2)
        for island in islands {
            let body = island.drop { $0 != ">" }.dropFirst()
            let text = String(body[..<(body.range(of: "</script>")?.lowerBound ?? body.endIndex)])
            #expect((try? JSONValue.parse(text.replacingOccurrences(of: "<\\/", with: "</"))) != nil)
        }
    }

    @Test func everyScenarioHasARowAndASectionAndTheTracedOneADiagram() {
        let page = Self.page()
        let results = Fixtures.summary.results
        #expect(page.components(separatedBy: "<tr data-status=").count - 1 == results.count)
        #expect(page.components(separatedBy: "<section class=\"scenario").count - 1 == results.count)
        #expect(page.components(separatedBy: "<svg id=\"diagram-").count - 1 == 1)
        #expect(page.components(separatedBy: "role=\"button\"").count - 1 == 2 * Fixtures.exchanges.count)
        #expect(page.contains("<dt>Expected</dt>"), "a failed check shows expected and actual")
        for status in ScenarioResult.Status.allCases {
            #expect(page.contains("name=\"status\" value=\"\(status.rawValue)\""))
        }
    }

    @Test func aScenarioWithoutATraceHasNoDiagram() {
        #expect(!Self.page(traced: false).contains("<svg id=\"diagram-"))
    }
}
