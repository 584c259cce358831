import JSON
public import Scenario

/// What a scenario's HTML section draws besides its result: its exchanges, redacted as its HAR
/// is, its steps as pages, and its apps in the scenario's order.
public struct ScenarioTrace: Sendable {
    public var exchanges: [RecordedExchange]
    public var pages: [DiagramPage]
    public var apps: [String]

    public init(exchanges: [RecordedExchange], pages: [DiagramPage], apps: [String]) {
        self.exchanges = exchanges
        self.pages = pages
        self.apps = apps
    }

    /// A run's trace, from its exchanges and recording.
    public init(exchanges: [RecordedExchange], recording: RunRecording?) {
        self.init(
            exchanges: exchanges, pages: recording.map(DiagramPage.pages) ?? [],
            apps: recording?.scenario.apps.map(\.bundleID) ?? [])
    }
}

/// A run as one self-contained HTML page (`run --html`): a summary with a table of scenarios
/// that filters by status and tag, then per scenario its steps, its failure with expected
/// versus actual, and a sequence diagram of its exchanges (`SequenceDiagram`) whose arrows
/// open the exchange, with every JWT in it decoded (`TokenInspection`).
///
/// Self-contained means no request leaves the page: styles and the small script are inline,
/// the diagrams are inline SVG, and a Content-Security-Policy forbids loading anything else.
/// Each scenario's exchanges are a JSON island the script reads when an arrow is chosen.
/// Status is said in words and marks (✓ ✗ – !), never by colour alone.
public enum HTMLReport {
    /// Bodies longer than this are cut in the page (the HAR keeps them whole).
    static let bodyLimit = 8 * 1024

    public static func render(
        _ summary: RunSummary, traces: [ScenarioKey: ScenarioTrace], commandLine: String,
        title: String = "SignInSim run"
    ) -> [UInt8] {
        var page =
            head(title: "\(title): \(counts(summary))") + """
                <header>
                <h1>\(text(title))</h1>
                <p class="counts">\(text(counts(summary)))\(summary.interrupted ? " · interrupted" : "")</p>
                <dl class="facts">
                <dt>Duration</dt><dd>\(text(seconds(summary.durationMilliseconds)))</dd>
                <dt>Randomness</dt><dd>\(text(ScenarioResult.describeSeed(summary.seed)))</dd>
                <dt>Command</dt><dd><code>\(text(commandLine))</code></dd>
                </dl>
                </header>

                """
        page += filters(summary)
        page += table(summary)
        page += SequenceDiagram.markers + "\n<main>\n"
        var bodies = BodyTable()
        for (index, result) in summary.results.enumerated() {
            page += section(result, index: index, trace: traces[result.key], bodies: &bodies)
        }
        page += "</main>\n<script type=\"application/json\" id=\"data-bodies\">"
        page += scriptSafe(JSONValue.array(bodies.texts.map(JSONValue.string)))
        page += "</script>\n<script>\(HTMLReportAssets.script)</script>\n</body>\n</html>\n"
        return Array(page.utf8)
    }

    /// The page of `signinsim matrix --html`: the profile × field-bug table.
    public static func render(_ matrix: ExposureMatrix, commandLine: String) -> [UInt8] {
        var page = head(title: "SignInSim: profiles × field bugs")
        page += "<header><h1>SignInSim: profiles × field bugs</h1><dl class=\"facts\">"
        page += "<dt>Command</dt><dd><code>\(text(commandLine))</code></dd></dl></header>\n<main>\n"
        page += MatrixReport.htmlSection(matrix)
        return Array((page + "</main>\n</body>\n</html>\n").utf8)
    }

    /// Everything up to `<body>`: the policy that loads nothing, and the style.
    static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
        script-src 'unsafe-inline'; img-src data:">
        <title>\(text(title))</title>
        <style>\(HTMLReportAssets.style)</style>
        </head>
        <body>

        """
    }

    // MARK: Summary

    private static func counts(_ summary: RunSummary) -> String {
        ScenarioResult.Status.allCases.map { "\(summary.count($0)) \($0.rawValue)" }.joined(separator: ", ")
    }

    private static func filters(_ summary: RunSummary) -> String {
        var html = "<form class=\"filters\" aria-label=\"Filter scenarios\"><fieldset><legend>Status</legend>"
        for status in ScenarioResult.Status.allCases {
            html += "<label><input type=\"checkbox\" name=\"status\" value=\"\(status.rawValue)\" checked> "
            html += "\(mark(status)) \(status.rawValue) (\(summary.count(status)))</label> "
        }
        html += "</fieldset><label>Tag <select id=\"tag\"><option value=\"\">any</option>"
        let tags = Set(summary.results.flatMap(\.tags)).sorted()
        for tag in tags { html += "<option>\(text(tag))</option>" }
        html += "</select></label> <output id=\"shown\" aria-live=\"polite\"></output></form>\n"
        return html
    }

    private static func table(_ summary: RunSummary) -> String {
        var html = """
            <table id="scenarios"><caption>Scenarios</caption>
            <thead><tr><th scope="col">Status</th><th scope="col">Scenario</th><th scope="col">File</th>\
            <th scope="col">Tags</th><th scope="col">Duration</th></tr></thead><tbody>

            """
        for (index, result) in summary.results.enumerated() {
            html +=
                "<tr data-status=\"\(result.status.rawValue)\" data-tags=\"\(attribute(tagsJSON(result)))\">"
            html += "<td>\(badge(result.status))</td>"
            html += "<td><a href=\"#scenario-\(index)\">\(text(result.name))</a></td>"
            html += "<td>\(text(result.file))</td><td>\(text(result.tags.joined(separator: ", ")))</td>"
            html += "<td class=\"duration\">\(text(seconds(result.durationMilliseconds)))</td></tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    // MARK: A scenario

    private static func section(
        _ result: ScenarioResult, index: Int, trace: ScenarioTrace?, bodies: inout BodyTable
    ) -> String {
        var html = """
            <section class="scenario \(result.status.rawValue)" id="scenario-\(index)" \
            data-status="\(result.status.rawValue)" data-tags="\(attribute(tagsJSON(result)))" \
            aria-labelledby="scenario-\(index)-name">
            <h2 id="scenario-\(index)-name">\(badge(result.status)) \(text(result.name))</h2>
            <p class="file">\(text(result.file)) · \(text(ScenarioResult.describeSeed(result.seed)))\
            \(result.harPath.map { " · HAR " + text($0) } ?? "")</p>

            """
        if !result.description.isEmpty {
            html += "<p class=\"description\">\(text(result.description))</p>\n"
        }
        if let failure = result.failure { html += failureBox(failure, status: result.status) }
        if !result.steps.isEmpty {
            // The sheet's pages are listed where someone will look: a scenario that did not pass,
            // or one whose pictures the run kept (a real issuer's); the JSON report has them all.
            let detailed = result.status != .passed || result.steps.contains(where: \.hasSheetPictures)
            html +=
                "<h3>Steps</h3>\n<ol class=\"steps\">"
                + result.steps.map { stepItem($0, sheetPages: detailed) }.joined() + "</ol>\n"
        }
        guard let trace else { return html + "</section>\n" }
        html += "<h3>Sequence</h3>\n" + diagramBlock(trace, index: index, marks: [:], bodies: &bodies)
        return html + "</section>\n"
    }

    /// A trace's diagram, the panel its arrows fill and the exchanges they read, numbered
    /// `index` in the page.
    private static func diagramBlock(
        _ trace: ScenarioTrace, index: Int, marks: [Int: String], bodies: inout BodyTable
    ) -> String {
        var diagram = SequenceDiagram(exchanges: trace.exchanges, pages: trace.pages, apps: trace.apps)
        diagram.marks = marks
        var summary =
            "\(trace.exchanges.count) exchanges between \(diagram.lifelines.map(\.title).joined(separator: ", ")),"
            + " in \(diagram.bands.count) steps; each arrow is a button named by its request or answer."
        if !marks.isEmpty { summary += " \(marks.count) exchanges part from the other story, marked ≠." }
        return """
            <div class="diagram-wrap">\(diagram.svg(id: "diagram-\(index)", summary: summary))</div>
            <div class="detail" id="detail-\(index)" aria-live="polite"><p>Choose an arrow to see its \
            exchange.</p></div>
            <script type="application/json" id="data-\(index)">\(island(trace, bodies: &bodies))</script>

            """
    }

    /// The page of `signinsim replay --html`: the recorded story and the replayed one side by
    /// side, each exchange where they part marked on its side with why.
    public static func renderReplay(
        title: String, facts: [(String, String)], verdict: String, divergences: [String],
        recorded: ScenarioTrace, recordedMarks: [Int: String], replayed: ScenarioTrace,
        replayedMarks: [Int: String], commandLine: String
    ) -> [UInt8] {
        var page = head(title: "\(title): \(verdict)")
        page += "<header><h1>\(text(title))</h1><p class=\"counts\">\(text(verdict))</p><dl class=\"facts\">"
        for (name, value) in facts + [("Command", commandLine)] {
            page += "<dt>\(text(name))</dt><dd>\(text(value))</dd>"
        }
        page += "</dl></header>\n" + SequenceDiagram.markers + "\n<main>\n"
        if !divergences.isEmpty {
            page +=
                "<div class=\"failure\"><p><strong>✗ Where the replay parts from the recording</strong></p><ul>"
            page += divergences.map { "<li>\(text($0))</li>" }.joined() + "</ul></div>\n"
        }
        var bodies = BodyTable()
        page += "<div class=\"sides\">\n<section class=\"side\" aria-labelledby=\"side-0\">"
        page += "<h2 id=\"side-0\">Recorded</h2>\n"
        page += diagramBlock(recorded, index: 0, marks: recordedMarks, bodies: &bodies) + "</section>\n"
        page += "<section class=\"side\" aria-labelledby=\"side-1\"><h2 id=\"side-1\">Replayed</h2>\n"
        page +=
            diagramBlock(replayed, index: 1, marks: replayedMarks, bodies: &bodies) + "</section>\n</div>\n"
        page += "</main>\n<script type=\"application/json\" id=\"data-bodies\">"
        page += scriptSafe(JSONValue.array(bodies.texts.map(JSONValue.string)))
        page += "</script>\n<script>\(HTMLReportAssets.script)</script>\n</body>\n</html>\n"
        return Array(page.utf8)
    }

    private static func failureBox(_ failure: StepFailure, status: ScenarioResult.Status) -> String {
        var html = "<div class=\"failure\"><p><strong>\(mark(status)) \(text(failure.step))</strong> at "
        html += "<code>\(text(failure.location.description))</code>: \(text(failure.message))</p>"
        if failure.expected != nil || failure.actual != nil {
            html += "<dl class=\"versus\"><dt>Expected</dt><dd>\(text(failure.expected ?? "—"))</dd>"
            html += "<dt>Actual</dt><dd>\(text(failure.actual ?? "—"))</dd></dl>"
        }
        return html + "</div>\n"
    }

    private static func stepItem(_ record: StepRecord, sheetPages: Bool) -> String {
        var html =
            "<li class=\"\(record.outcome.rawValue)\"><span class=\"outcome\">\(stepMark(record.outcome)) "
        html += "\(record.outcome.rawValue)</span> <code>\(text(record.step))</code> "
        html += "<span class=\"where\">\(text(record.location.description))</span>"
        if let call = record.callOutcome {
            html += " <span class=\"call\">→ \(text(call.reportedName))</span>"
        }
        if let note = record.note { html += " <span class=\"note\">\(text(note))</span>" }
        let shownPages = sheetPages ? record.sheetPages.filter { !$0.isRedirect } : []
        if !shownPages.isEmpty {
            html += "<ol class=\"sheet\" aria-label=\"web sheet pages\">"
            for page in shownPages {
                let status = page.status.map { " → \($0)" } ?? ""
                html +=
                    "<li class=\"\(page.failed ? "failed" : "page")\"><span class=\"engine\">\(page.engine.rawValue)</span> "
                html += "\(text(page.method)) \(text(page.url))\(status)"
                if let title = page.title, !title.isEmpty { html += " <q>\(text(title))</q>" }
                html += ": \(text(page.action))"
                if !page.rules.isEmpty {
                    html +=
                        "<ul class=\"rules\">" + page.rules.map { "<li>\(text($0))</li>" }.joined() + "</ul>"
                }
                html += "</li>"
            }
            html += "</ol>"
        }
        if !record.children.isEmpty {
            html += "<ol>" + record.children.map { stepItem($0, sheetPages: sheetPages) }.joined() + "</ol>"
        }
        return html + "</li>"
    }

    // MARK: The JSON island

    /// Each distinct body, and each distinct header field, once for the whole page, by its
    /// position: a run sends the same discovery document, key set and login page, and the same
    /// dozen header fields, in every scenario. (Fields alone were a third of the exchanges'
    /// bytes in the bundled library's report.)
    struct BodyTable {
        var texts: [String] = [""]
        private var positions: [String: Int] = ["": 0]

        mutating func position(of bytes: [UInt8]) -> JSONValue { position(ofText: HTMLReport.body(bytes)) }

        /// A header field as `Name: value`, which the page's script splits at the first colon (a
        /// field name has none, RFC 9110 §5.1).
        mutating func position(of field: HeaderField) -> JSONValue {
            position(ofText: field.name + ": " + field.value)
        }

        private mutating func position(ofText text: String) -> JSONValue {
            if let known = positions[text] { return .int(Int64(known)) }
            positions[text] = texts.count
            texts.append(text)
            return .int(Int64(texts.count - 1))
        }
    }

    /// The scenario's exchanges as the details panel shows them; bodies by their position in
    /// the page's body table.
    private static func island(_ trace: ScenarioTrace, bodies: inout BodyTable) -> String {
        let inspection = TokenInspection(keysFrom: trace.exchanges)
        let exchanges: [JSONValue] = trace.exchanges.map { exchange in
            let requestBody = bodies.position(of: exchange.requestBody)
            let responseBody = bodies.position(of: exchange.responseBody)
            return [
                "method": .string(exchange.method), "url": .string(exchange.url),
                "status": exchange.status.map { .int(Int64($0)) } ?? .null,
                "error": exchange.error.map(JSONValue.string) ?? .null,
                "source": .string(exchange.source.rawValue),
                "app": exchange.app.map(JSONValue.string) ?? .null,
                "started": .string(
                    UTCTimestamp.iso8601(millisecondsSinceEpoch: exchange.startedAtMilliseconds)),
                "requestHeaders": .array(exchange.requestHeaders.map { bodies.position(of: $0) }),
                "requestBody": requestBody,
                "responseHeaders": .array(exchange.responseHeaders.map { bodies.position(of: $0) }),
                "responseBody": responseBody,
                "tokens": .array(inspection.tokens(in: exchange)),
            ]
        }
        return scriptSafe(.object(["exchanges": .array(exchanges)]))
    }

    /// JSON to put inside a script element: `</` cannot end the element from inside a string
    /// once written `<\/`, which JSON reads as `</` (RFC 8259 §7).
    private static func scriptSafe(_ value: JSONValue) -> String {
        value.serializedString().replacingOccurrences(of: "</", with: "<\\/")
    }

    static func body(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return "(\(bytes.count) bytes, not text)"
        }
        guard bytes.count > bodyLimit else { return text }
        let cut = String(decoding: bytes.prefix(bodyLimit), as: UTF8.self)
        return cut + "\n… (\(bytes.count) bytes in all; the HAR holds the rest)"
    }

    // MARK: Text

    private static func mark(_ status: ScenarioResult.Status) -> String {
        switch status {
        case .passed: "✓"
        case .failed: "✗"
        case .skipped: "–"
        case .interrupted: "!"
        }
    }

    private static func stepMark(_ outcome: StepRecord.Outcome) -> String {
        switch outcome {
        case .passed: "✓"
        case .failed: "✗"
        case .skipped: "–"
        }
    }

    private static func badge(_ status: ScenarioResult.Status) -> String {
        "<span class=\"status \(status.rawValue)\">\(mark(status)) \(status.rawValue)</span>"
    }

    private static func tagsJSON(_ result: ScenarioResult) -> String {
        JSONValue.array(result.tags.map(JSONValue.string)).serializedString()
    }

    private static func seconds(_ milliseconds: Double) -> String {
        Durations.seconds(fromMilliseconds: milliseconds) + " s"
    }

    static func text(_ value: String) -> String { XMLWriter.escapedText(value) }
    static func attribute(_ value: String) -> String { XMLWriter.escapedAttribute(value) }
}

extension StepRecord {
    /// Whether a sheet page of the step, or of a step inside it, kept its picture.
    var hasSheetPictures: Bool {
        sheetPages.contains { $0.screenshot != nil } || children.contains(where: \.hasSheetPictures)
    }
}
