import Foundation
import TestSupport
import Testing

@testable import SignInSimCLI

/// A run that selects no scenario exits 2 with the reason (issue 28), writing no report.
@Suite("Runs that select nothing")
struct EmptySelectionTests {
    @Test(
        "the reason names what emptied the selection",
        arguments: [
            (["--include-tags", "nightly"], "no scenario matches --include-tags nightly"),
            (
                ["--include-tags", "smoke,web", "--exclude-tags", "smoke,web"],
                "no scenario matches --include-tags smoke,web --exclude-tags smoke,web"
            ),
            (
                ["--shard-split", "3/3"],
                "shard 3/3 of --shard-split holds no scenario file (there are fewer files than shards)"
            ),
        ])
    func reasons(options: [String], reason: String) async throws {
        let folder = try RunCommandTests.folder([
            "a.yaml": RunCommandTests.passing, "b.yaml": RunCommandTests.failing,
        ])
        let reports = try TemporaryDirectory()
        let streams = CapturedStreams()
        let status = await SignInSimCLI.run(
            ["run", folder.url.path, "--report-json", reports.url.path + "/run.json"] + options,
            context: streams.context())
        #expect(status == 2)
        #expect(streams.standardError == "Error: no scenario to run: \(reason)\n")
        #expect(streams.standardOutput.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: reports.url.path + "/run.json"))
    }

    @Test("a folder without scenario files")
    func noFiles() async throws {
        let folder = try RunCommandTests.folder(["flows/only-a-flow.yaml": "steps: [launch]"])
        let streams = CapturedStreams()
        let status = await SignInSimCLI.run(["run", folder.url.path], context: streams.context())
        #expect(status == 2)
        #expect(
            streams.standardError == "Error: no scenario to run: no scenario files in \(folder.url.path)\n")
    }

    @Test("the first step that left nothing is the one named")
    func firstEmptyStep() {
        #expect(EmptySelection(found: 0, inShard: 0, chosen: 0) == .noScenarioFiles)
        #expect(EmptySelection(found: 2, inShard: 0, chosen: 0) == .emptyShard)
        #expect(EmptySelection(found: 2, inShard: 1, chosen: 0) == .noTagMatch)
        #expect(EmptySelection(found: 2, inShard: 1, chosen: 1) == nil)
    }
}
