import JSON
public import Scenario

extension HTMLReport {
    /// One check's row on the audit's page.
    public struct AuditRow: Sendable {
        public var id: String
        public var title: String
        /// `pass`, `warn`, `fail` or `skip`.
        public var status: String
        public var summary: String
        public var reference: String
        public var conformanceTest: String?
        /// HAR entry numbers, from 1.
        public var evidence: [Int]

        public init(
            id: String, title: String, status: String, summary: String, reference: String,
            conformanceTest: String?, evidence: [Int]
        ) {
            self.id = id
            self.title = title
            self.status = status
            self.summary = summary
            self.reference = reference
            self.conformanceTest = conformanceTest
            self.evidence = evidence
        }
    }

    /// The page of `signinsim audit --html`: the scorecard by group, each check linking to the
    /// exchanges behind it, and every exchange numbered as the HAR numbers it, secrets hidden
    /// as in the HAR (`redaction`).
    public static func renderAudit(
        title: String, verdict: String, facts: [(String, String)],
        groups: [(title: String, rows: [AuditRow])],
        exchanges: [RecordedExchange], commandLine: String, redaction: Redaction = .default
    ) -> [UInt8] {
        var page = head(title: "\(title): \(verdict)")
        page += "<header><h1>\(text(title))</h1><p class=\"counts\">\(text(verdict))</p><dl class=\"facts\">"
        for (name, value) in facts + [("Command", commandLine)] {
            page += "<dt>\(text(name))</dt><dd>\(text(value))</dd>"
        }
        page += "</dl></header>\n<main>\n"
        for group in groups {
            page += "<section><h2>\(text(group.title))</h2>\n<table class=\"results\"><thead><tr>"
            page += "<th>Status</th><th>Check</th><th>What was seen</th><th>Rule</th><th>Exchanges</th>"
            page += "</tr></thead><tbody>\n"
            for row in group.rows {
                page += "<tr class=\"\(auditClass(row.status))\" id=\"check-\(text(row.id))\">"
                page += "<td>\(auditMark(row.status)) \(text(row.status))</td>"
                page += "<td><code>\(text(row.id))</code><br>\(text(row.title))</td>"
                page += "<td>\(text(row.summary))</td><td>\(text(row.reference))"
                if let test = row.conformanceTest {
                    page += "<br><small>conformance suite: \(text(test))</small>"
                }
                page += "</td><td>"
                page += row.evidence.map { "<a href=\"#exchange-\($0)\">\($0)</a>" }.joined(separator: " ")
                page += "</td></tr>\n"
            }
            page += "</tbody></table></section>\n"
        }
        let redacted = redaction.apply(to: exchanges, documents: []).exchanges
        page += "<section><h2>Exchanges</h2>\n<ol class=\"exchanges\">\n"
        for (index, exchange) in redacted.enumerated() {
            let number = index + 1
            let status =
                exchange.status.map(String.init) ?? (exchange.error.map { "no response: \($0)" } ?? "—")
            page += "<li id=\"exchange-\(number)\"><details><summary>\(number). "
            page += "<span class=\"engine\">\(text(exchange.source.rawValue))</span> "
            page += "\(text(exchange.method)) \(text(exchange.url)) → \(text(status))</summary>"
            page +=
                "<pre>"
                + text(exchange.requestHeaders.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            if !exchange.requestBody.isEmpty { page += "\n\n" + text(body(exchange.requestBody)) }
            page += "</pre><pre>"
            page += text(exchange.responseHeaders.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            if !exchange.responseBody.isEmpty { page += "\n\n" + text(body(exchange.responseBody)) }
            page += "</pre></details></li>\n"
        }
        page += "</ol></section>\n</main>\n</body>\n</html>\n"
        return Array(page.utf8)
    }

    private static func auditMark(_ status: String) -> String {
        switch status {
        case "pass": "✓"
        case "fail": "✗"
        case "warn": "!"
        default: "–"
        }
    }

    private static func auditClass(_ status: String) -> String {
        switch status {
        case "pass": "passed"
        case "fail": "failed"
        case "warn": "invalid"
        default: "skipped"
        }
    }
}
