import Foundation
import Testing

/// The documentation stands alone: every relative link in the README, the scenario reference
/// and `docs/` names a file or folder inside the repository.
@Suite struct DocumentationLinkTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized

    /// The targets of `[text](target)` links, without their `#fragment`.
    static func links(in text: String) -> [String] {
        var targets: [String] = []
        var rest = Substring(text)
        while let opening = rest.range(of: "](") {
            rest = rest[opening.upperBound...]
            guard let closing = rest.firstIndex(of: ")") else { break }
            let target = rest[..<closing].split(
                separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            if let path = target.first, !path.isEmpty { targets.append(String(path)) }
            rest = rest[closing...]
        }
        return targets
    }

    @Test func everyRelativeLinkStaysInTheRepository() throws {
        let docs = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("docs").path
        )
        .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        var dead: [String] = []
        var checked = 0
        for file in ["README.md", "scenarios/README.md"] + docs {
            let url = Self.root.appendingPathComponent(file)
            for link in Self.links(in: try String(contentsOf: url, encoding: .utf8))
            where !link.contains("://") && !link.hasPrefix("mailto:") {
                checked += 1
                let target = url.deletingLastPathComponent().appendingPathComponent(link).standardized
                let inside = target.path.hasPrefix(Self.root.path + "/")
                if !inside || !FileManager.default.fileExists(atPath: target.path) {
                    dead.append("\(file): \(link)")
                }
            }
        }
        #expect(checked > 20)
        #expect(dead == [])
    }
}
