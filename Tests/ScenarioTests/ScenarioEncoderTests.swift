import Foundation
import JSON
import Testing

@testable import Scenario

/// Writing scenarios back: every bundled scenario, written by `ScenarioEncoder` and printed by
/// `ScenarioYAML`, reads back as the same scenario (includes inlined, positions aside). The HAR
/// pages of a run, a replay's story and `import-har`'s output all rest on this.
@Suite struct ScenarioEncoderTests {
    static let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenarios").path

    /// The bundled scenario files (not the included flows).
    static func files() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: library)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".yaml"), !path.split(separator: "/").contains("flows") else { continue }
            files.append(library + "/" + path)
        }
        return files.sorted()
    }

    static let nowhere = SourceLocation(file: "", line: 0, column: 0)

    /// A scenario with every position, file name and variable left out, and includes inlined at
    /// the top level (the encoder writes them so), to compare what the scenario says.
    static func normalized(_ scenario: Scenario) -> Scenario {
        var scenario = scenario
        scenario.location = nowhere
        scenario.env = [:]
        scenario.steps = steps(scenario.steps, topLevel: true)
        if case .embedded(let tenant?) = scenario.issuer {
            scenario.issuer = .embedded(tenant: nil)
            scenario.description += String(decoding: tenant.json.serialized(), as: UTF8.self)
        }
        return scenario
    }

    /// Steps with includes inlined, but for a parallel branch that is a sequence (`branch`).
    static func steps(_ steps: [Step], topLevel: Bool, branch: Bool = false) -> [Step] {
        steps.flatMap { step -> [Step] in
            var step = step
            step.location = nowhere
            switch step.action {
            case .flow(.include(_, let inner)):
                if !branch { return self.steps(inner, topLevel: topLevel) }
                step.action = .flow(.include(file: "", steps: self.steps(inner, topLevel: false)))
                step.name = "sequence"
            case .flow(.parallel(let branches)):
                step.action = .flow(.parallel(self.steps(branches, topLevel: false, branch: true)))
            case .flow(.expect(let expectations)):
                // The checks of one `expect` are a mapping: their order is the writer's.
                step.action = .flow(
                    .expect(
                        expectations.map { expectation in
                            var expectation = expectation
                            expectation.location = nowhere
                            return expectation
                        }.sorted { order($0) < order($1) }))
            default:
                break
            }
            return [step]
        }
    }

    /// A check's place in a normalized `expect`: its JSON with sorted keys.
    static func order(_ expectation: ScenarioCheck) -> String {
        String(decoding: JSONValue.object(ScenarioEncoder.expect([expectation])).serialized(), as: UTF8.self)
    }

    @Test("every bundled scenario reads back the same once written as YAML", arguments: files())
    func roundTrip(file: String) throws {
        let scenario = try ScenarioLoader.load(path: file)
        let yaml = ScenarioYAML.render(ScenarioEncoder.document(scenario))
        let read = try ScenarioLoader.parse(Array(yaml.utf8), file: file, substitutes: false)
        let (left, right) = (Self.normalized(read), Self.normalized(scenario))
        if left != right {
            // Name the first step that differs, not the whole scenario.
            let differing = zip(left.steps, right.steps).first { $0 != $1 }
            let headerEqual =
                left.apps == right.apps && left.device == right.device && left.issuer == right.issuer
                && left.description == right.description
            let message =
                "\(file): read back differently; first differing step:\n"
                + "\(String(describing: differing?.0))\n\(String(describing: differing?.1))\nheader equal: \(headerEqual)"
            Issue.record(Comment(rawValue: message))
        }
    }

    @Test("strings that YAML would read as something else are quoted")
    func quoting() throws {
        for text in [
            "true", "no", "null", "~", "1234", "0x1f", "1e3", ": x", "- x", "#x", "a: b", "a #b", "{x}",
            "[x]", " lead", "trail ", "", "*ref", "&anchor", "!tag", "%", "@x", "`x", "'x'", "\"x\"",
            "line\nbreak",
        ] {
            let yaml = ScenarioYAML.render(
                ["name": .string(text), "steps": [["signIn": ["password": .string(text)]]]])
            let scenario = try ScenarioLoader.parse(Array(yaml.utf8), file: "q.yaml", substitutes: false)
            #expect(scenario.name == text, "\(yaml)")
            guard case .sdk(.signIn(let arguments), _, _)? = scenario.steps.first?.action else {
                Issue.record("no signIn in \(yaml)")
                continue
            }
            #expect(arguments.user.password == text, "\(yaml)")
        }
    }

    @Test("a step written for a HAR page is the scenario file's syntax")
    func stepSyntax() throws {
        let scenario = try ScenarioLoader.parse(
            Array(
                """
                name: s
                steps:
                  - launch
                  - signIn: {username: bob@example.com, password: pw, retry: [{password: right}], consent: deny}
                  - issuer: {fault: oauth-error, status: 403, error: invalid_grant, error_description: "no"}
                  - getAccessToken: {force: true, error: [none, session_expired]}
                """.utf8), file: "s.yaml")
        let written = scenario.steps.map(ScenarioEncoder.step)
        #expect(written[0] == "launch")
        #expect(
            written[1]
                == [
                    "signIn": [
                        "username": "bob@example.com", "password": "pw", "retry": [["password": "right"]],
                        "consent": "deny",
                    ]
                ])
        #expect(
            written[2]
                == [
                    "issuer": [
                        "fault": "oauth-error", "count": 1, "status": 403, "error": "invalid_grant",
                        "error_description": "no",
                    ]
                ])
        #expect(written[3] == ["getAccessToken": ["force": true, "error": ["none", "session_expired"]]])
    }
}
