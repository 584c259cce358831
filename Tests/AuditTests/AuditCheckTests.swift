import Audit
import Foundation
import TestSupport
import Testing

/// The catalogue: stable ids, a rule and a reference for each, and docs that list them all.
@Suite struct AuditCheckTests {
    /// Ids are unique, dotted `group.rule`, and start with their group's name.
    @Test func idsNameTheirGroup() {
        #expect(Set(AuditCheck.allCases.map(\.rawValue)).count == AuditCheck.allCases.count)
        for check in AuditCheck.allCases {
            #expect(check.rawValue.hasPrefix(check.group.rawValue + "."), "\(check.rawValue)")
            #expect(!check.title.isEmpty && !check.reference.isEmpty)
        }
        #expect(AuditCheck.allCases.count >= 30)
    }

    /// docs/audit.md lists every check with the setting that breaks it.
    @Test func theDocsListEveryCheckAndItsMutation() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/audit.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for check in AuditCheck.allCases {
            #expect(text.contains("`\(check.rawValue)`"), "docs/audit.md does not list \(check.rawValue)")
            #expect(
                text.contains(check.mutation.described), "docs/audit.md lacks \(check.mutation.described)")
        }
    }
}

/// The JSON report's schema file is the one the catalogue makes.
@Suite struct AuditSchemaTests {
    /// `docs/audit.schema.json` is `Scorecard.jsonSchema` (re-record with SIGNINSIM_UPDATE_GOLDEN=1).
    @Test func theSchemaFileIsCurrent() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/audit.schema.json")
        try GoldenFile(at: url).check(Array((Scorecard.jsonSchema.prettyPrinted() + "\n").utf8))
    }
}
