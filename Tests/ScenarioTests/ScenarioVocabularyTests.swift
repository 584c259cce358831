import Foundation
import Scenario
import Testing

/// Every name a scenario may use is documented: the scenario reference names each step, check,
/// error code, phase and non-fault profile; the field-bug table each fault profile; the issuer
/// and conformance documents each fault.
@Suite struct ScenarioVocabularyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The names no text writes as code: `name`, `name: …`, or one of `a\|b` alternatives.
    static func undocumented(_ names: [String], in texts: [String]) -> [String] {
        names.filter { name in
            let forms = ["`\(name)`", "`\(name):", "`\(name)\\|", "\\|\(name)`", "\\|\(name)\\|"]
            return !texts.contains { text in forms.contains { text.contains($0) } }
        }
    }

    @Test func theScenarioReferenceNamesEveryStepCheckErrorAndPhase() throws {
        let reference = try Self.text("scenarios/README.md")
        #expect(Self.undocumented(ScenarioVocabulary.steps, in: [reference]) == [])
        #expect(Self.undocumented(ScenarioVocabulary.expectations, in: [reference]) == [])
        #expect(Self.undocumented(ScenarioVocabulary.outcomes, in: [reference]) == [])
        #expect(Self.undocumented(ScenarioVocabulary.appPhases, in: [reference]) == [])
    }

    @Test func everyProfileAndFaultIsDocumented() throws {
        let documents = try ["scenarios/README.md", "docs/field-bugs.md", "docs/sdk.md"].map(Self.text)
        #expect(Self.undocumented(ScenarioVocabulary.profiles, in: documents) == [])
        let issuerDocuments = try ["docs/issuer.md", "docs/conformance.md"].map(Self.text)
        #expect(Self.undocumented(ScenarioVocabulary.faults, in: issuerDocuments) == [])
    }

    @Test func theListsHoldNoDuplicates() {
        for names in [
            ScenarioVocabulary.steps, ScenarioVocabulary.expectations, ScenarioVocabulary.profiles,
            ScenarioVocabulary.faults, ScenarioVocabulary.outcomes, ScenarioVocabulary.appPhases,
        ] {
            #expect(Set(names).count == names.count, "\(names)")
        }
    }
}
