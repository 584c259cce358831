public import Scenario

/// A run as JUnit XML, the test report every CI system reads (Jenkins, GitLab, GitHub
/// Actions' test reporters, Buildkite, CircleCI).
///
/// There is no normative schema; this follows the de-facto one those readers share (Jenkins'
/// `junit-10.xsd` from Ant's formatter): `<testsuites>` with totals, one `<testsuite>` per
/// scenario file in the order the files first appear, one `<testcase>` per scenario. A failed
/// scenario has a `<failure>`, a skipped one `<skipped>`, an interrupted one an `<error>`
/// (it neither passed nor failed). `time` is in seconds.
public enum JUnitReport {
    /// The name of the root element, which readers show as the name of the run.
    public static let runName = "signinsim"

    /// The report as a UTF-8 XML 1.0 document.
    /// - Parameter includeTimings: false leaves out every `time`, so that two runs with one seed
    ///   give the same bytes.
    public static func render(_ summary: RunSummary, includeTimings: Bool = true) -> [UInt8] {
        var writer = XMLWriter()
        var attributes = counts(summary.results)
        attributes.insert(("name", runName), at: 0)
        if includeTimings {
            attributes.append(("time", Durations.seconds(fromMilliseconds: summary.durationMilliseconds)))
        }
        writer.open("testsuites", attributes)
        for (file, results) in groupedByFile(summary.results) {
            var suiteAttributes = [("name", file)] + counts(results)
            if includeTimings {
                let total = results.reduce(0) { $0 + $1.durationMilliseconds }
                suiteAttributes.append(("time", Durations.seconds(fromMilliseconds: total)))
            }
            writer.open("testsuite", suiteAttributes)
            let properties = properties(of: summary)
            if !properties.isEmpty {
                writer.open("properties")
                for (name, value) in properties {
                    writer.element("property", [("name", name), ("value", value)])
                }
                writer.close()
            }
            for result in results { testCase(result, includeTimings: includeTimings, into: &writer) }
            writer.close()
        }
        return writer.finish()
    }

    /// `scenarios/sign-in/basic.yaml` → `scenarios.sign-in.basic`: readers group test cases by
    /// the dots of `classname`, as they would Java packages.
    public static func className(forFile file: String) -> String {
        var components = file.split(whereSeparator: { $0 == "/" || $0 == "\\" })
            .filter { $0 != "." && $0 != ".." }
            .map(String.init)
        if var last = components.popLast() {
            if let dot = last.lastIndex(of: "."), dot != last.startIndex { last = String(last[..<dot]) }
            components.append(last)
        }
        return components.isEmpty ? runName : components.joined(separator: ".")
    }

    private static func testCase(_ result: ScenarioResult, includeTimings: Bool, into writer: inout XMLWriter)
    {
        var attributes = [
            ("name", result.name), ("classname", className(forFile: result.file)), ("file", result.file),
        ]
        if includeTimings {
            attributes.append(("time", Durations.seconds(fromMilliseconds: result.durationMilliseconds)))
        }
        let notes = stepNotes(result.steps)
        switch result.status {
        case .passed where notes.isEmpty:
            writer.element("testcase", attributes)
        case .passed:
            writer.open("testcase", attributes)
            writer.element("system-out", [], text: notes)
            writer.close()
        case .failed:
            writer.open("testcase", attributes)
            if let failure = result.failure {
                writer.element(
                    "failure",
                    [
                        ("message", "\(failure.step) at \(failure.location): \(failure.message)"),
                        ("type", failure.step),
                    ],
                    text: details(failure, seed: result.seed))
            } else {
                writer.element(
                    "failure", [("message", "failed"), ("type", "failed")],
                    text: ScenarioResult.describeSeed(result.seed))
            }
            if !notes.isEmpty { writer.element("system-out", [], text: notes) }
            writer.close()
        case .skipped:
            writer.open("testcase", attributes)
            writer.element("skipped", [("message", result.failure?.message ?? "skipped")])
            writer.close()
        case .interrupted:
            writer.open("testcase", attributes)
            writer.element(
                "error", [("message", "interrupted"), ("type", "interrupted")],
                text: result.failure.map { details($0, seed: result.seed) })
            writer.close()
        }
    }

    /// What the steps noted (the evidence an `expect` passed on, why a sign-out is
    /// unconfirmed, the subject signed in as), one step per line with its location, nested steps
    /// included; empty when none noted anything. JUnit's `system-out` carries it, so that a CI
    /// page shows what a passing scenario saw, not only that it passed.
    static func stepNotes(_ steps: [StepRecord]) -> String {
        var lines: [String] = []
        func walk(_ steps: [StepRecord]) {
            for step in steps {
                if let note = step.note { lines.append("\(step.step) at \(step.location): \(note)") }
                walk(step.children)
            }
        }
        walk(steps)
        return lines.joined(separator: "\n")
    }

    /// The body of a failure: everything needed to find and rerun it, one fact per line.
    private static func details(_ failure: StepFailure, seed: UInt64?) -> String {
        var lines = [
            "step: \(failure.step)",
            "location: \(failure.location)",
            "message: \(failure.message)",
        ]
        if let expected = failure.expected { lines.append("expected: \(expected)") }
        if let actual = failure.actual { lines.append("actual: \(actual)") }
        lines.append(seed.map { "seed: \($0)" } ?? "seed: none (fresh randomness)")
        return lines.joined(separator: "\n")
    }

    /// `tests`, `failures`, `skipped` and `errors`, in the order readers print them.
    private static func counts(_ results: [ScenarioResult]) -> [(String, String)] {
        func count(_ status: ScenarioResult.Status) -> String {
            String(results.count { $0.status == status })
        }
        return [
            ("tests", String(results.count)), ("failures", count(.failed)), ("skipped", count(.skipped)),
            ("errors", count(.interrupted)),
        ]
    }

    private static func properties(of summary: RunSummary) -> [(String, String)] {
        var properties: [(String, String)] = []
        if let seed = summary.seed { properties.append(("seed", String(seed))) }
        if let shard = summary.shard { properties.append(("shard", shard)) }
        return properties
    }

    /// Results grouped by file, files in the order they first appear, results in run order.
    private static func groupedByFile(_ results: [ScenarioResult]) -> [(String, [ScenarioResult])] {
        var order: [String] = []
        var groups: [String: [ScenarioResult]] = [:]
        for result in results {
            if groups[result.file] == nil { order.append(result.file) }
            groups[result.file, default: []].append(result)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }
}
