import Foundation
import JSON
import TestSupport
import Testing

/// `signinsim matrix` through the built binary, on two bundled field bugs.
@Suite("signinsim matrix")
struct MatrixCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../.."
    )
    .standardized.path
    static let bugs = ["01-refresh-rotation-race.yaml", "03-refresh-without-refresh-token.yaml"].map {
        root + "/scenarios/field-bugs/" + $0
    }

    @Test("each faulty profile is exposed to its own field bug, the default to none")
    func diagonal() async throws {
        let out = try TemporaryDirectory()
        let result = try await SignInSimBinary.run(
            ["matrix"] + Self.bugs + [
                "--profiles", "default,naive,drop-refresh-token", "--json", out.url.path + "/m.json",
                "--html",
                out.url.path + "/m.html",
            ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let rows = result.standardOutput.split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
        #expect(rows.contains(["default", ".", "."]))
        #expect(rows.contains(["naive", "X", "."]))
        #expect(rows.contains(["drop-refresh-token", ".", "X"]))
        #expect(result.standardOutput.contains("default: exposed to none"))
        let json = try JSONValue.parse(Array(try Data(contentsOf: out.url.appendingPathComponent("m.json"))))
        #expect(json["verdicts"]?["naive"]?["1"]?.stringValue == "exposed")
        #expect(json["verdicts"]?["naive"]?["3"]?.stringValue == "not_exposed")
        let html = try String(contentsOf: out.url.appendingPathComponent("m.html"), encoding: .utf8)
        #expect(html.contains("✗ <span class=\"word\">exposed</span>"))
    }

    @Test("a default profile exposed to a scenario exits 1 with the reason; a bad profile name exits 64")
    func defaultExposed() async throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write(
            """
            name: a check the default app cannot pass
            apps:
              - {id: com.example.app, profile: default}
            steps:
              - launch
              - expect: {session: present}
            """, named: "01-impossible.yaml")
        let result = try await SignInSimBinary.run(["matrix", folder.url.path, "--profiles", "default"])
        #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("default: exposed to 1"))
        #expect(
            result.standardOutput.contains("no session is stored")
                || result.standardOutput.contains("session"))
        let typo = try await SignInSimBinary.run(["matrix", folder.url.path, "--profiles", "naiv"])
        #expect(typo.status == 64)
        #expect(typo.standardError.contains("did you mean \"naive\""), "\(typo.standardError)")
    }
}
