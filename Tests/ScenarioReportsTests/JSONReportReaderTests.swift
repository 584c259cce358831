import JSON
import Scenario
import ScenarioReports
import Testing

/// A JSON report read back is the run it was written from.
@Suite struct JSONReportReaderTests {
    static func code(_ text: String) -> ReportReadError.Code? {
        do {
            _ = try JSONReportReader.read(Array(text.utf8), file: "r.json")
            return nil
        } catch {
            return error.code
        }
    }

    @Test func readsBackWhatWasWritten() throws {
        for includeTimings in [true, false] {
            let written = JSONReport.render(Fixtures.summary, includeTimings: includeTimings)
            let read = try JSONReportReader.read(written, file: "r.json")
            #expect(JSONReport.render(read, includeTimings: includeTimings) == written)
        }
        let large = RunSummary(results: [], seed: UInt64.max, shard: "2/3", selection: [])
        #expect(try JSONReportReader.read(JSONReport.render(large), file: "r.json") == large)
    }

    @Test func refusesWhatIsNotAReport() throws {
        #expect(Self.code("{\"version\": 1") == .malformed)
        #expect(Self.code("[]") == .notAReport)
        #expect(Self.code("{\"version\": 2, \"scenarios\": []}") == .unsupportedVersion)
        #expect(Self.code("{\"version\": 1, \"scenarios\": [{}], \"interrupted\": false}") == .notAReport)
        var document = JSONReport.document(Fixtures.summary)
        document = replacing(document, status: "exploded")
        #expect(Self.code(document.prettyPrinted()) == .notAReport)
        do {
            _ = try JSONReportReader.read(Array(document.prettyPrinted().utf8), file: "r.json")
        } catch {
            #expect(error.message.contains("scenarios[0].status"), "\(error.message)")
        }
    }

    /// The document with its first scenario's status changed.
    private func replacing(_ document: JSONValue, status: String) -> JSONValue {
        guard case .object(var root) = document, case .array(var scenarios)? = root["scenarios"],
            case .object(var first)? = scenarios.first
        else { return document }
        first["status"] = .string(status)
        scenarios[0] = .object(first)
        root["scenarios"] = .array(scenarios)
        return .object(root)
    }
}
