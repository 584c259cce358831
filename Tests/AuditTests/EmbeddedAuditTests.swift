import Audit
import Issuer
import Testing

/// The audit against the embedded issuer as it ships: every rule it keeps.
@Suite struct EmbeddedAuditTests {
    /// No check fails or warns against the default tenant, and every check runs.
    @Test func theEmbeddedIssuerPassesEveryCheck() async throws {
        let (scorecard, world, _) = try await AuditWorld.auditEmbedded()
        await world.shutdown()
        for finding in scorecard.findings {
            print(
                "\(finding.status.rawValue)\t\(finding.check.rawValue)\t\(finding.summary)\t\(finding.evidence)"
            )
        }
        print(
            "requests \(scorecard.requests) ms \(scorecard.milliseconds) profile \(scorecard.refreshProfile ?? "-")"
        )
        let notPassed = scorecard.findings.filter { $0.status != .pass }
        #expect(notPassed.isEmpty, "\(notPassed.map { "\($0.check.rawValue): \($0.status) \($0.summary)" })")
        #expect(scorecard.stoppedEarly == nil)
    }
}
