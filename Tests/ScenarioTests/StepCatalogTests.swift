import Foundation
import JSON
import Scenario
import Testing

/// The step declarations are what the loader allows, what the schema states and what the
/// scenario reference documents.
@Suite struct StepCatalogTests {
    /// The rows of the tables of one section of the reference, by the names written as code
    /// in their first cell.
    static func tableRows(of section: String) throws -> [(names: Set<String>, text: String)] {
        let reference = try ScenarioVocabularyTests.text("scenarios/README.md")
        let lines = reference.split(separator: "\n").drop { $0 != "## \(section)" }.dropFirst()
            .prefix { !$0.hasPrefix("## ") }
        return lines.compactMap { line in
            guard line.hasPrefix("| `") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { return nil }
            return (Set(codeWords(in: String(cells[1]))), String(line))
        }
    }

    /// The words in the code spans of `text`: `a`, `b: {c, d}` give a, b, c, d.
    static func codeWords(in text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }
            .flatMap { span in
                span.element.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
            }
    }

    /// The keys a row must name: every argument but `app` and `error`, which the reference
    /// describes once for all steps, and the checks of `expect`, which have their own table.
    static func documentedKeys(_ kind: StepKind) -> [String] {
        guard kind != .flow(.expect) else { return [] }
        return kind.keys().filter { $0 != "app" && $0 != "error" }
    }

    @Test func everyStepHasARowThatNamesEachOfItsArguments() throws {
        let rows = try Self.tableRows(of: "Steps")
        for kind in StepKind.allCases {
            let row = rows.first { $0.names.contains(kind.name) }
            #expect(row != nil, "no row of scenarios/README.md names the step \(kind.name)")
            guard let row else { continue }
            let named = Set(Self.codeWords(in: row.text))
            let missing = Self.documentedKeys(kind).filter { !named.contains($0) }
            #expect(missing == [], "the row of \(kind.name) does not name \(missing)")
        }
    }

    @Test func everyCheckHasARow() throws {
        let rows = try Self.tableRows(of: "Expectations")
        for key in ExpectationKey.allCases {
            #expect(
                rows.contains { $0.names.contains(key.rawValue) }, "no row names the check \(key.rawValue)")
        }
    }

    @Test func theSchemaHasOneAlternativePerStep() throws {
        guard case .object(let document) = ScenarioSchema.document,
            case .object(let definitions)? = document["$defs"],
            case .object(let step)? = definitions["step"],
            case .array(let alternatives)? = step["anyOf"]
        else {
            Issue.record("the schema has no step definition")
            return
        }
        #expect(alternatives.count == StepKind.allCases.count)
    }

    @Test func namesRoundTrip() {
        for kind in StepKind.allCases { #expect(StepKind(name: kind.name) == kind) }
        #expect(StepKind(name: "signin") == nil)
    }

    @Test func nestedKeysComeFromTheDeclaration() {
        #expect(StepKind.world(.network).keys("status") == ["code", "count", "path"])
        #expect(StepKind.sdk(.signIn).keys("retry") == ["username", "password"])
        #expect(StepKind.world(.issuer).keys("clock") == ["advance", "offset"])
        #expect(StepKind.flow(.wait).keys("requests") == ["count", "path"])
        #expect(StepKind.flow(.expect).keys().count == ExpectationKey.allCases.count + 1)
    }

    /// A key the declaration does not hold is refused by the loader, with the declared ones.
    @Test(arguments: StepKind.allCases.filter { !$0.keys().isEmpty })
    func anUndeclaredArgumentIsRefused(kind: StepKind) throws {
        let text = """
            name: t
            steps:
              - \(kind.name): {not_an_argument: 1}
            """
        do {
            _ = try ScenarioLoader.parse(Array(text.utf8), file: "t.yaml")
            Issue.record("\(kind.name) accepted an argument it does not declare")
        } catch {
            #expect(error.description.contains("unknown key \"not_an_argument\""), "\(error)")
        }
    }
}
