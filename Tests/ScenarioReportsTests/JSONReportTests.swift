import JSON
import Scenario
import ScenarioReports
import TestSupport
import Testing

@Suite("JSON report")
struct JSONReportTests {
    /// The whole document without timings matches the checked-in copy.
    @Test("matches the golden report")
    func matchesGolden() throws {
        try GoldenFile(named: "report.json").check(JSONReport.render(Fixtures.summary, includeTimings: false))
    }

    /// Without timings, two runs that differ only in how long they took give the same bytes.
    @Test("is byte-identical across runs without timings")
    func deterministicWithoutTimings() {
        let first = JSONReport.render(Fixtures.summary, includeTimings: false)
        let second = JSONReport.render(Fixtures.retimedSummary, includeTimings: false)
        #expect(first == second)
        #expect(!String(decoding: first, as: UTF8.self).contains("duration_ms"))
        #expect(JSONReport.render(Fixtures.summary) != JSONReport.render(Fixtures.retimedSummary))
    }

    /// With timings, the run, each scenario and each step (nested ones too) carry `duration_ms`.
    @Test("carries every duration with timings")
    func carriesDurations() throws {
        let document = try JSONValue.parse(JSONReport.render(Fixtures.summary))
        #expect(document["duration_ms"] == .double(3456.7))
        let scenario = try #require(document["scenarios"]?.arrayValue?.first)
        #expect(scenario["duration_ms"] == .double(123.457))
        let parallel = try #require(scenario["steps"]?.arrayValue?.last)
        #expect(parallel["duration_ms"] == .double(44.125))
        #expect(parallel["children"]?.arrayValue?.first?["duration_ms"] == .double(40.5))
    }

    /// Totals count each status, and the run's own fields are at the top.
    @Test("totals and run fields")
    func totals() throws {
        let document = try JSONValue.parse(JSONReport.render(Fixtures.summary))
        #expect(document["version"] == 1)
        #expect(document["totals"] == ["passed": 1, "failed": 1, "skipped": 1, "interrupted": 1])
        #expect(document["seed"] == 42)
        #expect(document["shard"] == "1/2")
        #expect(document["interrupted"] == true)
    }

    /// A failure keeps its step, location, message and both sides of the expectation; a
    /// passing scenario has a null failure; absent optional values are null, not missing.
    @Test("failure and absent values")
    func failureAndNulls() throws {
        let scenarios = try #require(
            try JSONValue.parse(JSONReport.render(Fixtures.summary))["scenarios"]?.arrayValue)
        #expect(scenarios[0]["failure"] == .null)
        #expect(scenarios[0]["har"] == "har/signs-in.har")
        #expect(scenarios[1]["har"] == .null)
        #expect(
            scenarios[1]["failure"]
                == [
                    "step": "expect", "file": "scenarios/sign-in/basic.yaml", "line": 21, "column": 7,
                    "message": "the session's error differs from what the scenario expects",
                    "expected": "error invalid_nonce", "actual": "signed in as alice@example.com",
                ])
        #expect(scenarios[2]["failure"]?["expected"] == .null)
        let empty = try JSONValue.parse(JSONReport.render(RunSummary(results: [])))
        #expect(empty["seed"] == .null)
        #expect(empty["shard"] == .null)
        #expect(empty["scenarios"] == [])
    }

    /// Seeds past 2^53 are written as strings so that no JSON reader rounds them.
    @Test("large seeds stay exact")
    func largeSeeds() throws {
        let summary = RunSummary(
            results: [ScenarioResult(name: "n", file: "f.yaml", status: .passed, seed: UInt64.max)],
            seed: (1 << 53) - 1)
        let document = try JSONValue.parse(JSONReport.render(summary))
        #expect(document["seed"] == .int((1 << 53) - 1))
        #expect(document["scenarios"]?.arrayValue?.first?["seed"] == "18446744073709551615")
    }

    /// The document ends with a newline, as text files should.
    @Test("ends with a newline")
    func trailingNewline() {
        #expect(JSONReport.render(Fixtures.summary).last == UInt8(ascii: "\n"))
    }
}
