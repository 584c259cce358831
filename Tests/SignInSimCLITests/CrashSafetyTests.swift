import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `signinsim run` killed with SIGKILL at many points of a run: every report and HAR file is
/// either absent or whole, and the only leftovers are the writer's hidden temporary files,
/// which the next run removes.
@Suite("run killed at any point")
struct CrashSafetyTests {
    static let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "scenarios/web-session"
        )
        .path

    /// Every file under `folder`, relative names.
    static func files(in folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var names: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                names.append(name)
            }
        }
        return names.sorted()
    }

    /// Whether the file holds a whole document of its kind: JSON that parses (HAR and the JSON
    /// report), or JUnit XML that ends its root element.
    static func isWhole(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        if path.hasSuffix(".xml") {
            let text = String(decoding: data, as: UTF8.self)
            return text.hasPrefix("<?xml")
                && text.trimmingCharacters(in: .whitespacesAndNewlines)
                    .hasSuffix("</testsuites>")
        }
        return (try? JSONValue.parse(Array(data))) != nil
    }

    static func isTemporary(_ name: String) -> Bool {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        return last.hasPrefix(".") && last.hasSuffix(".tmp")
    }

    @Test("SIGKILL at twelve points: files absent or whole, temporary files cleaned by the next run")
    func killedRunLeavesWholeFiles() async throws {
        let delays = [30, 60, 100, 150, 200, 280, 360, 450, 600, 800, 1_100, 1_500]
        var sawFiles = 0
        for delay in delays {
            let out = try TemporaryDirectory()
            let folder = out.url.path
            // The scenarios whose sheets run in WebKit are left out: they add an engine's start-up
            // to each of the 24 runs and nothing to what is checked (how report files are written).
            let arguments = [
                "run", Self.library, "--jobs", "2", "--exclude-tags", "webkit", "--har-dir", folder + "/har",
                "--report-json", folder + "/report.json", "--junit", folder + "/junit.xml",
            ]
            let run = try RunningProcess.signInSim(arguments)
            try await Task.sleep(for: .milliseconds(delay))
            run.send(SIGKILL)
            _ = try await run.waitForExit(within: .seconds(30))
            for name in Self.files(in: folder) where !Self.isTemporary(name) {
                sawFiles += 1
                #expect(Self.isWhole(folder + "/" + name), "killed after \(delay) ms: \(name) is torn")
            }
            // The next run into the same folders removes what the killed one left.
            let again = try RunningProcess.signInSim(arguments)
            let exit = try await again.waitForExit(within: .seconds(120))
            #expect(exit.status == 0, "\(again.standardError)")
            let left = Self.files(in: folder).filter(Self.isTemporary)
            #expect(left.isEmpty, "killed after \(delay) ms, then run again: \(left) left behind")
        }
        // The kills landed across the run, some after files were written.
        #expect(sawFiles > 0)
    }
}
