public import JSON
public import Scenario

/// A run as one JSON document for tools: dashboards, flakiness trackers, `jq` in CI.
///
/// Shape (version 1; a change that breaks readers bumps `version`):
/// `{"version", "seed", "shard", "selection", "interrupted", "duration_ms", "totals",
/// "scenarios": [{"name", "file", "description", "tags", "status", "seed", "duration_ms", "har",
/// "failure", "steps"}]}`. `selection`, in a shard's report, lists every scenario of the whole
/// run (`[{"file", "name"}]`), for `merge-reports`; `JSONReportReader` reads it all back.
/// Keys are sorted and absent values are `null` rather than missing, so that every report has
/// every key. Without timings, two runs with one seed give byte-identical documents.
public enum JSONReport {
    public static let formatVersion: Int64 = 1

    /// The report as UTF-8 JSON, indented, with a final newline.
    /// - Parameter includeTimings: false leaves out every `duration_ms`, the only values that
    ///   differ between two runs with one seed.
    public static func render(_ summary: RunSummary, includeTimings: Bool = true) -> [UInt8] {
        Array(document(summary, includeTimings: includeTimings).prettyPrinted().utf8) + [UInt8(ascii: "\n")]
    }

    /// The report as a value.
    public static func document(_ summary: RunSummary, includeTimings: Bool = true) -> JSONValue {
        var members: [String: JSONValue] = [
            "version": .int(formatVersion),
            "seed": summary.seed.map(seed) ?? .null,
            "shard": summary.shard.map(JSONValue.string) ?? .null,
            "selection": summary.selection.map { keys in
                .array(keys.map { ["file": .string($0.file), "name": .string($0.name)] })
            } ?? .null,
            "interrupted": .bool(summary.interrupted),
            "totals": [
                "passed": .int(Int64(summary.count(.passed))),
                "failed": .int(Int64(summary.count(.failed))),
                "skipped": .int(Int64(summary.count(.skipped))),
                "interrupted": .int(Int64(summary.count(.interrupted))),
            ],
            "scenarios": .array(summary.results.map { scenario($0, includeTimings: includeTimings) }),
        ]
        if includeTimings { members["duration_ms"] = Durations.milliseconds(summary.durationMilliseconds) }
        return .object(members)
    }

    /// A seed as an integer when every JSON reader holds it exactly (I-JSON, RFC 7493 §2.2:
    /// up to 2^53 − 1), otherwise as its decimal string: a seed read back rounded would
    /// reproduce a different run.
    static func seed(_ value: UInt64) -> JSONValue {
        value < 1 << 53 ? .int(Int64(value)) : .string(String(value))
    }

    private static func scenario(_ result: ScenarioResult, includeTimings: Bool) -> JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(result.name),
            "file": .string(result.file),
            "description": .string(result.description),
            "tags": .array(result.tags.map(JSONValue.string)),
            "status": .string(result.status.rawValue),
            "seed": result.seed.map(seed) ?? .null,
            "har": result.harPath.map(JSONValue.string) ?? .null,
            "failure": result.failure.map(failure) ?? .null,
            "steps": .array(result.steps.map { step($0, includeTimings: includeTimings) }),
        ]
        if includeTimings { members["duration_ms"] = Durations.milliseconds(result.durationMilliseconds) }
        return .object(members)
    }

    private static func failure(_ failure: StepFailure) -> JSONValue {
        [
            "step": .string(failure.step),
            "file": .string(failure.location.file),
            "line": .int(Int64(failure.location.line)),
            "column": .int(Int64(failure.location.column)),
            "message": .string(failure.message),
            "expected": failure.expected.map(JSONValue.string) ?? .null,
            "actual": failure.actual.map(JSONValue.string) ?? .null,
        ]
    }

    private static func step(_ record: StepRecord, includeTimings: Bool) -> JSONValue {
        var members: [String: JSONValue] = [
            "step": .string(record.step),
            "file": .string(record.location.file),
            "line": .int(Int64(record.location.line)),
            "column": .int(Int64(record.location.column)),
            "outcome": .string(record.outcome.rawValue),
            "note": record.note.map(JSONValue.string) ?? .null,
            "children": .array(record.children.map { step($0, includeTimings: includeTimings) }),
        ]
        if includeTimings { members["duration_ms"] = Durations.milliseconds(record.durationMilliseconds) }
        if !record.sheetPages.isEmpty { members["sheet"] = .array(record.sheetPages.map(sheetPage)) }
        return .object(members)
    }

    /// A web sheet page: what the person saw and did, and the picture when the run kept it.
    static func sheetPage(_ page: SheetPage) -> JSONValue {
        var members: [String: JSONValue] = [
            "app": .string(page.app), "engine": .string(page.engine.rawValue), "method": .string(page.method),
            "url": .string(page.url), "status": page.status.map { .int(Int64($0)) } ?? .null,
            "title": page.title.map(JSONValue.string) ?? .null, "action": .string(page.action),
            "failed": .bool(page.failed), "redirect": .bool(page.isRedirect),
            "rules": .array(page.rules.map(JSONValue.string)),
        ]
        if let picture = page.screenshot {
            members["screenshot"] = [
                "jpeg": .string(Base64.encode(picture.jpeg)), "width": .int(Int64(picture.width)),
                "height": .int(Int64(picture.height)),
            ]
        }
        return .object(members)
    }
}
