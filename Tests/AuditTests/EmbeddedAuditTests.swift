import Audit
import Cryptography
import Issuer
import JOSE
import OAuthCore
import Testing

/// The audit against the embedded issuer as it ships: every rule it keeps, within its limits.
@Suite struct EmbeddedAuditTests {
    /// No check fails, warns or skips against the default tenant, and the run stays small. The
    /// one skip is `par.required-enforced`: the tenant allows PAR without requiring it.
    @Test func theEmbeddedIssuerPassesEveryCheck() async throws {
        let (scorecard, world, phone) = try await AuditWorld.auditEmbedded()
        let logged = phone.device.network.log.count
        await world.shutdown()
        let notPassed = scorecard.findings.filter { $0.status != .pass }
        #expect(
            notPassed.map(\.check) == [.parRequiredEnforced],
            "\(notPassed.map { "\($0.check.rawValue): \($0.status) \($0.summary)" })")
        #expect(notPassed.first?.summary.contains("does not require PAR") == true)
        #expect(scorecard.stoppedEarly == nil)
        #expect(scorecard.requests == logged)
        #expect(scorecard.requests < 150)
        #expect(scorecard.refreshProfile?.hasPrefix("signinsim") == true)
    }

    /// With PAR required, every flow pushes its request first, as an app must, and every check
    /// passes, `par.required-enforced` among them.
    @Test func withPARRequiredEveryFlowPushesAndEveryCheckPasses() async throws {
        var tenant = AuditWorld.tenant()
        tenant.pushedAuthorizationRequests = .required
        let (scorecard, world, phone) = try await AuditWorld.auditEmbedded(tenant: tenant)
        let pushes = phone.device.network.log.count { $0.request.url.hasSuffix("/par") }
        await world.shutdown()
        let notPassed = scorecard.findings.filter { $0.status != .pass }
        #expect(notPassed.isEmpty, "\(notPassed.map { "\($0.check.rawValue): \($0.status) \($0.summary)" })")
        #expect(pushes > 20)
    }

    /// A `private_key_jwt` client (RFC 7523 §2.2) audited as the app, with either audience:
    /// every request that authenticates (token, PAR, revocation) carries a fresh assertion, and
    /// no check fails or warns.
    @Test(arguments: ClientAssertion.Audience.allCases)
    func aPrivateKeyJWTClientIsAudited(_ audience: ClientAssertion.Audience) async throws {
        let key = try P256PrivateKey(random: SeededRandom(seed: 7))
        var tenant = AuditWorld.tenant()
        let app = try #require(tenant.client("com.example.app"))
        var signed = ClientRegistration(
            id: "com.example.audit-jwt", name: "Audit JWT", redirectURIs: app.redirectURIs,
            postLogoutRedirectURIs: app.postLogoutRedirectURIs, grantTypes: app.grantTypes)
        signed.keys = JWKSet(keys: [try JWSSigner(key: .p256(key), algorithm: .es256).publicJWK])
        signed.authenticationMethod = .privateKeyJWT
        tenant.clients.append(signed)
        let privateJWK = try JWK.privateKey(text: key.pemRepresentation())
        let (scorecard, world, phone) = try await AuditWorld.auditEmbedded(tenant: tenant) {
            $0.client = AuditClient(id: signed.id, key: privateJWK, assertionAudience: audience)
        }
        let asserted = phone.device.network.log.count {
            String(decoding: $0.request.body, as: UTF8.self).contains("client_assertion=")
        }
        await world.shutdown()
        let broken = scorecard.findings.filter { $0.status == .fail || $0.status == .warn }
        #expect(broken.isEmpty, "\(broken.map { "\($0.check.rawValue): \($0.status) \($0.summary)" })")
        #expect(scorecard.finding(.parPushAnswered)?.status == .pass)
        #expect(scorecard.finding(.revocationRevokes)?.status == .pass)
        #expect(asserted > 15)
    }

    /// Every finding that ran names exchanges, each one the log (and so the HAR) holds.
    @Test func evidenceNumbersAreTheLogsEntries() async throws {
        let (scorecard, world, _) = try await AuditWorld.auditEmbedded()
        await world.shutdown()
        for finding in scorecard.findings where finding.status != .skip {
            #expect(!finding.evidence.isEmpty, "\(finding.check.rawValue) names no exchange")
            #expect(finding.evidence.allSatisfy { (1...scorecard.requests).contains($0) })
        }
    }

    /// A budget too small for the audit stops it with the reason; what did not run is a skip.
    @Test func theRequestBudgetStopsTheAudit() async throws {
        let (scorecard, world, _) = try await AuditWorld.auditEmbedded { $0.maximumRequests = 10 }
        await world.shutdown()
        #expect(scorecard.requests <= 10)
        #expect(scorecard.stoppedEarly?.contains("budget of 10 requests") == true)
        #expect(scorecard.count(.fail) == 0)
        #expect(scorecard.count(.skip) > 30)
    }

    /// Unselected checks are skipped as such and send nothing of their own.
    @Test func onlyTheSelectedChecksRun() async throws {
        let (scorecard, world, _) = try await AuditWorld.auditEmbedded {
            $0.selection = Set(AuditCheck.allCases.filter { $0.group == .discovery })
        }
        await world.shutdown()
        #expect(scorecard.count(.pass) == AuditCheck.allCases.count { $0.group == .discovery })
        #expect(scorecard.findings.filter { $0.check.group != .discovery }.allSatisfy { $0.status == .skip })
        #expect(scorecard.requests <= 3)
    }
}
