import Audit
import Issuer
import Testing

/// Every check can fail: the embedded issuer with each check's mutation breaks that check's
/// rule, and the audit says so for that check alone (docs/audit.md, "Every check can fail").
@Suite struct MutantAuditTests {
    /// The mutant of `check` fails it (or warns, for a SHOULD), fails its declared companions,
    /// and leaves every other check passing or skipped.
    @Test(arguments: AuditCheck.allCases)
    func eachMutantBreaksItsCheck(_ check: AuditCheck) async throws {
        let mutation = check.mutation
        let (scorecard, world, _) = try await AuditWorld.auditEmbedded(
            tenant: mutation.tenant(), faults: mutation.faults
        ) { target in
            if check.mutantAuditsAsLoopbackApp, let loopback = target.loopbackRedirectURI {
                target.redirectURI = loopback
            }
        }
        await world.shutdown()
        let broken = Set([check] + check.mutationAlsoBreaks)
        for finding in scorecard.findings {
            let expected: AuditStatus = finding.check.severity == .must ? .fail : .warn
            if broken.contains(finding.check) {
                #expect(
                    finding.status == expected,
                    "\(mutation.described) should make \(finding.check.rawValue) \(expected.rawValue): \(finding.summary)"
                )
            } else {
                #expect(
                    finding.status == .pass || finding.status == .skip,
                    "\(mutation.described) also broke \(finding.check.rawValue): \(finding.status.rawValue) \(finding.summary)"
                )
            }
        }
        #expect(scorecard.stoppedEarly == nil)
    }
}
