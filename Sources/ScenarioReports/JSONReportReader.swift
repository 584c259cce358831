public import Errors
import Foundation
import JSON
public import Scenario

/// Why a JSON report could not be read back.
public struct ReportReadError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// The file is not JSON.
        case malformed
        /// A `version` this reader does not know.
        case unsupportedVersion = "unsupported_version"
        /// JSON, but not a report: a key missing or of the wrong type.
        case notAReport = "not_a_report"
    }

    public let code: Code
    /// Names the file and, for a value, where in the document it is (`scenarios[3].status`).
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// Reads a report `JSONReport` wrote back into a `RunSummary` (what `merge-reports` joins).
///
/// Every key `JSONReport` writes is read; `duration_ms` may be absent (a report rendered
/// without timings). Totals are not read: they are counted again from the scenarios.
public enum JSONReportReader {
    /// Larger than the report of any run this tool makes (the bundled library's is ~1 MB).
    public static let maximumSize = 256 << 20

    public static func read(_ bytes: [UInt8], file: String) throws(ReportReadError) -> RunSummary {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes, maximumSize: maximumSize)
        } catch {
            throw ReportReadError(.malformed, "\(file):\(error.description)")
        }
        let document = Reader(file: file)
        guard let version = root["version"]?.int64Value else {
            throw document.notAReport("version", "a report's version number")
        }
        guard version == JSONReport.formatVersion else {
            throw ReportReadError(
                .unsupportedVersion,
                "\(file): report version \(version); this signinsim reads version \(JSONReport.formatVersion)"
            )
        }
        var results: [ScenarioResult] = []
        for (index, scenario) in try document.array(root, "scenarios").enumerated() {
            results.append(try document.scenario(scenario, at: "scenarios[\(index)]"))
        }
        var selection: [ScenarioKey]?
        if let list = root["selection"], list != .null {
            var keys: [ScenarioKey] = []
            for (index, item) in try document.array(root, "selection").enumerated() {
                let path = "selection[\(index)]"
                keys.append(
                    ScenarioKey(
                        file: try document.string(item, "file", at: path),
                        name: try document.string(item, "name", at: path)))
            }
            selection = keys
        }
        return RunSummary(
            results: results, interrupted: try document.bool(root, "interrupted", at: ""),
            durationMilliseconds: root["duration_ms"]?.doubleValue ?? 0,
            seed: try document.seed(root, at: ""), shard: try document.optionalString(root, "shard", at: ""),
            selection: selection)
    }

    /// Reads values, naming where a wrong one is.
    private struct Reader {
        let file: String

        func notAReport(_ path: String, _ expected: String) -> ReportReadError {
            ReportReadError(
                .notAReport, "\(file): \(path) must be \(expected); is this a signinsim JSON report?")
        }

        private func joined(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

        func array(_ object: JSONValue, _ key: String, at path: String = "") throws(ReportReadError)
            -> [JSONValue]
        {
            guard let value = object[key]?.arrayValue else { throw notAReport(joined(path, key), "a list") }
            return value
        }

        func string(_ object: JSONValue, _ key: String, at path: String) throws(ReportReadError) -> String {
            guard let value = object[key]?.stringValue else {
                throw notAReport(joined(path, key), "a string")
            }
            return value
        }

        func optionalString(_ object: JSONValue, _ key: String, at path: String) throws(ReportReadError)
            -> String?
        {
            guard let value = object[key], value != .null else { return nil }
            guard let text = value.stringValue else {
                throw notAReport(joined(path, key), "a string or null")
            }
            return text
        }

        func bool(_ object: JSONValue, _ key: String, at path: String) throws(ReportReadError) -> Bool {
            guard let value = object[key]?.boolValue else {
                throw notAReport(joined(path, key), "true or false")
            }
            return value
        }

        func int(_ object: JSONValue, _ key: String, at path: String) throws(ReportReadError) -> Int {
            guard let value = object[key]?.int64Value, let small = Int(exactly: value), small >= 0 else {
                throw notAReport(joined(path, key), "a whole number")
            }
            return small
        }

        /// A seed as `JSONReport.seed` writes it: an integer, its decimal string, or null.
        func seed(_ object: JSONValue, at path: String) throws(ReportReadError) -> UInt64? {
            switch object["seed"] {
            case nil, .null?: return nil
            case .int(let value)? where value >= 0: return UInt64(value)
            case .string(let text)?:
                if let value = UInt64(text) { return value }
            default: break
            }
            throw notAReport(joined(path, "seed"), "a seed (a whole number) or null")
        }

        func location(_ object: JSONValue, at path: String) throws(ReportReadError) -> SourceLocation {
            SourceLocation(
                file: try string(object, "file", at: path), line: try int(object, "line", at: path),
                column: try int(object, "column", at: path))
        }

        func named<Name: RawRepresentable>(_ object: JSONValue, _ key: String, at path: String)
            throws(ReportReadError) -> Name where Name.RawValue == String
        {
            guard let name = Name(rawValue: try string(object, key, at: path)) else {
                throw notAReport(joined(path, key), "a known \(key)")
            }
            return name
        }

        func scenario(_ object: JSONValue, at path: String) throws(ReportReadError) -> ScenarioResult {
            var tags: [String] = []
            for (index, tag) in try array(object, "tags", at: path).enumerated() {
                guard let text = tag.stringValue else {
                    throw notAReport("\(path).tags[\(index)]", "a string")
                }
                tags.append(text)
            }
            var failure: StepFailure?
            if let value = object["failure"], value != .null {
                let at = "\(path).failure"
                failure = StepFailure(
                    step: try string(value, "step", at: at), location: try location(value, at: at),
                    message: try string(value, "message", at: at),
                    expected: try optionalString(value, "expected", at: at),
                    actual: try optionalString(value, "actual", at: at))
            }
            var steps: [StepRecord] = []
            for (index, step) in try array(object, "steps", at: path).enumerated() {
                steps.append(try self.step(step, at: "\(path).steps[\(index)]"))
            }
            return ScenarioResult(
                name: try string(object, "name", at: path), file: try string(object, "file", at: path),
                description: try string(object, "description", at: path), tags: tags,
                status: try named(object, "status", at: path), failure: failure, steps: steps,
                durationMilliseconds: object["duration_ms"]?.doubleValue ?? 0,
                seed: try seed(object, at: path),
                harPath: try optionalString(object, "har", at: path))
        }

        /// Steps nest (a `parallel` block's branches); the report writer bounds the depth by
        /// the scenario's, and the JSON parser bounds it for any input.
        func step(_ object: JSONValue, at path: String) throws(ReportReadError) -> StepRecord {
            var children: [StepRecord] = []
            for (index, child) in try array(object, "children", at: path).enumerated() {
                children.append(try step(child, at: "\(path).children[\(index)]"))
            }
            var record = StepRecord(
                step: try string(object, "step", at: path), location: try location(object, at: path),
                outcome: try named(object, "outcome", at: path),
                note: try optionalString(object, "note", at: path),
                children: children, durationMilliseconds: object["duration_ms"]?.doubleValue ?? 0)
            if object["sheet"] != nil {
                for (index, page) in try array(object, "sheet", at: path).enumerated() {
                    record.sheetPages.append(try sheetPage(page, at: "\(path).sheet[\(index)]"))
                }
            }
            return record
        }

        func sheetPage(_ object: JSONValue, at path: String) throws(ReportReadError) -> SheetPage {
            var page = SheetPage(
                app: try string(object, "app", at: path), engine: try named(object, "engine", at: path),
                method: try string(object, "method", at: path), url: try string(object, "url", at: path),
                status: object["status"]?.int64Value.map { Int(clamping: $0) },
                title: try optionalString(object, "title", at: path),
                action: try string(object, "action", at: path), failed: object["failed"]?.boolValue ?? false,
                isRedirect: object["redirect"]?.boolValue ?? false,
                rules: try array(object, "rules", at: path).compactMap(\.stringValue))
            if let picture = object["screenshot"], let text = picture["jpeg"]?.stringValue,
                let bytes = Data(base64Encoded: text)
            {
                page.screenshot = SheetPage.Screenshot(
                    jpeg: Array(bytes), width: Int(clamping: picture["width"]?.int64Value ?? 0),
                    height: Int(clamping: picture["height"]?.int64Value ?? 0))
            }
            return page
        }
    }
}
