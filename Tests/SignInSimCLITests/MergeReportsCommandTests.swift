import Foundation
import JSON
import TestSupport
import Testing

/// `signinsim merge-reports` through the built binary: the shards of a run joined give the
/// report of the whole run; a missing or doubled shard is refused and nothing is written.
@Suite("signinsim merge-reports")
struct MergeReportsCommandTests {
    static func scenarios(_ names: [String]) throws -> TemporaryDirectory {
        try RunCommandTests.folder(
            Dictionary(
                uniqueKeysWithValues: names.map { name in
                    (
                        "\(name).yaml",
                        RunCommandTests.passing.replacingOccurrences(
                            of: "name: passes", with: "name: \(name)")
                    )
                }))
    }

    /// (file, name, status) of each scenario of a JSON report, in order.
    static func statuses(_ path: String) throws -> [[String]] {
        let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return (report["scenarios"]?.arrayValue ?? []).map { scenario in
            ["file", "name", "status"].map { scenario[$0]?.stringValue ?? "" }
        }
    }

    @Test("three shards joined are the run on one machine, in JSON and JUnit")
    func joinsShards() async throws {
        let folder = try Self.scenarios(["a", "b", "c", "d", "e"])
        let reports = try TemporaryDirectory()
        let out = reports.url.path
        for index in 1...3 {
            let shard = try await SignInSimBinary.run([
                "run", folder.url.path, "--shard-split", "\(index)/3", "--report-json",
                "\(out)/s\(index).json", "--har-dir", "\(out)/har\(index)",
            ])
            #expect(shard.status == 0, "\(shard.standardError)")
        }
        // The HARs moved, as a CI job that downloads the shards' artifacts elsewhere finds them.
        let downloaded = "\(out)/downloaded"
        try FileManager.default.createDirectory(atPath: downloaded, withIntermediateDirectories: true)
        for index in 1...3 {
            for name in try FileManager.default.contentsOfDirectory(atPath: "\(out)/har\(index)") {
                try FileManager.default.moveItem(
                    atPath: "\(out)/har\(index)/\(name)", toPath: "\(downloaded)/\(name)")
            }
        }
        let merged = try await SignInSimBinary.run([
            "merge-reports", "\(out)/s3.json", "\(out)/s1.json", "\(out)/s2.json",
            "--report-json", "\(out)/all.json", "--junit", "\(out)/all.xml", "--html", "\(out)/all.html",
            "--har-dir", downloaded,
        ])
        #expect(merged.status == 0, "\(merged.standardError)")
        #expect(merged.standardOutput.contains("5 passed, 0 failed"))
        let whole = try await SignInSimBinary.run([
            "run", folder.url.path, "--report-json", "\(out)/whole.json",
        ])
        #expect(whole.status == 0)
        #expect(try Self.statuses("\(out)/all.json") == Self.statuses("\(out)/whole.json"))
        let junit = try String(contentsOfFile: "\(out)/all.xml", encoding: .utf8)
        #expect(junit.contains("tests=\"5\""), "\(junit)")
        let html = try String(contentsOfFile: "\(out)/all.html", encoding: .utf8)
        #expect(html.components(separatedBy: "<svg id=\"diagram-").count - 1 == 5, "a diagram per scenario")
        #expect(!merged.standardError.contains("no HAR"), "\(merged.standardError)")
    }

    @Test("a shard missing or given twice, a report of no shard, a broken file: exit 2, nothing written")
    func refusals() async throws {
        let folder = try Self.scenarios(["a", "b", "c", "d"])
        let reports = try TemporaryDirectory()
        let out = reports.url.path
        for index in 1...2 {
            _ = try await SignInSimBinary.run([
                "run", folder.url.path, "--shard-split", "\(index)/2", "--report-json",
                "\(out)/s\(index).json",
            ])
        }
        _ = try await SignInSimBinary.run(["run", folder.url.path, "--report-json", "\(out)/whole.json"])
        try Data("{\"version\": 1,".utf8).write(to: URL(fileURLWithPath: "\(out)/broken.json"))
        let cases: [([String], String)] = [
            (["\(out)/s1.json"], "in no report"),
            (["\(out)/s1.json", "\(out)/s2.json", "\(out)/s2.json"], "is in both"),
            (["\(out)/whole.json"], "is not the report of a shard"),
            (["\(out)/s1.json", "\(out)/broken.json"], "broken.json:1:"),
            (["\(out)/s1.json", "\(out)/absent.json"], "absent.json"),
        ]
        for (reports, reason) in cases {
            let result = try await SignInSimBinary.run(
                ["merge-reports"] + reports + ["--junit", "\(out)/merged.xml"])
            #expect(result.status == 2, "\(reports): \(result.standardError)")
            #expect(result.standardError.contains(reason), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: "\(out)/merged.xml"))
        }
        let noOutput = try await SignInSimBinary.run(["merge-reports", "\(out)/s1.json", "\(out)/s2.json"])
        #expect(noOutput.status == 64)
    }
}
