import Foundation
import JSON
import TestSupport
import Testing

/// `signinsim audit`, run through the built binary.
@Suite("signinsim audit")
struct AuditCommandTests {
    /// Against the embedded issuer: exit 0, every check passed but `par.required-enforced` (its
    /// tenant allows PAR without requiring it), the JSON's totals and requests;
    /// the HAR holds exactly the requests counted, and the page links evidence to them.
    @Test func auditOfTheEmbeddedIssuer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let har = folder.appendingPathComponent("audit.har").path
        let html = folder.appendingPathComponent("audit.html").path
        let result = try await SignInSimBinary.run([
            "audit", "--format", "json", "--har", har, "--html", html,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONValue.parse(result.standardOutput)
        #expect(report["totals"]?["fail"]?.int64Value == 0)
        #expect(report["totals"]?["skip"]?.int64Value == 1)
        #expect(report["totals"]?["pass"]?.int64Value == Int64(report["checks"]?.arrayValue?.count ?? -1) - 1)
        let requests = try #require(report["requests"]?.int64Value)
        let archive = try JSONValue.parse(String(contentsOfFile: har, encoding: .utf8))
        #expect(Int64(archive["log"]?["entries"]?.arrayValue?.count ?? -1) == requests)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("id=\"exchange-\(requests)\""))
        #expect(page.contains("href=\"#exchange-1\""))
    }

    /// `--client-key` (`private_key_jwt`) is read as `sign-in` reads it: a file that holds no
    /// key is a usage error naming the option, before anything is sent.
    @Test func aClientKeyThatIsNoKeyIsAUsageError() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "audit-key-\(UUID().uuidString)")
        try Data("not a key".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await SignInSimBinary.run(["audit", "--client-key", file.path])
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains("--client-key <file>"))
    }

    /// An issuer that cannot be reached is exit 2, and the reason is printed.
    @Test func anUnreachableIssuerIsExitTwo() async throws {
        let result = try await SignInSimBinary.run([
            "audit", "--issuer", "http://127.0.0.1:9", "--browser", "lite", "--format", "json",
        ])
        #expect(result.status == 2, "\(result.standardError)")
        let report = try JSONValue.parse(result.standardOutput)
        #expect(
            report["stopped_early"]?.stringValue?.contains("discovery document could not be fetched") == true)
    }

    /// An unknown check id is a usage error naming the groups.
    @Test func anUnknownCheckIsAUsageError() async throws {
        let result = try await SignInSimBinary.run(["audit", "--only", "discovery.nope"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("not a check id"))
    }
}
