import Clocks
import Foundation
import HTTPCore
import JOSE
import JSON
import OAuthCore
public import Simulator
import WebAuthSession

/// Runs `signinsim audit`: plays a native app against an issuer, check by check, and gives the
/// scorecard.
///
/// The checks run in the catalogue's order (`AuditCheck.allCases`), each on flows of its own
/// or on the group's shared ones; a finding's evidence is every exchange sent while its check
/// ran, plus the shared flow it read. What the audit touches is its own: one test user's
/// session in the phone's browser, and the tokens it was issued. It ends by signing that
/// session out.
public enum Auditor {
    /// Audits `target.issuer` from `phone`. Never throws: what could not run is a skipped
    /// finding, and a stop (budget, unreachable issuer) skips the rest with the reason.
    ///
    /// - Parameters:
    ///   - now: the issuer's time, in Unix seconds.
    ///   - wait: waits that many seconds of the issuer's time, or returns false when it may not.
    public static func run(
        _ target: AuditTarget, on phone: SimulatedPhone, now: @escaping @Sendable () -> Int64,
        wait: @escaping @Sendable (Int64) async -> Bool
    ) async -> Scorecard {
        let started = ContinuousClock.now
        let run = AuditRun(probe: AuditProbe(phone: phone, target: target, now: now, wait: wait))
        var stoppedEarly: String?
        do {
            try await run.all()
        } catch let stop as AuditStop {
            stoppedEarly = stop.reason
        } catch {
            stoppedEarly = "\(error)"
        }
        let findings = AuditCheck.allCases.map { check in
            run.findings[check]
                ?? AuditFinding(
                    check: check, status: .skip,
                    summary: "not run: the audit stopped before it (\(stoppedEarly ?? "no reason recorded"))")
        }
        return Scorecard(
            issuer: target.issuer, clientID: target.client.id, engine: target.engine.rawValue,
            findings: findings, requests: run.probe.sent,
            milliseconds: Int((ContinuousClock.now - started).inMilliseconds),
            refreshProfile: run.refreshProfile, stoppedEarly: stoppedEarly)
    }
}

/// What a check concluded, before its severity makes a broken rule a warning or a failure.
struct Verdict {
    enum Kind { case held, broken, skipped }
    var kind: Kind
    var summary: String

    static func pass(_ summary: String) -> Verdict { Verdict(kind: .held, summary: summary) }
    static func broken(_ summary: String) -> Verdict { Verdict(kind: .broken, summary: summary) }
    static func skip(_ summary: String) -> Verdict { Verdict(kind: .skipped, summary: summary) }
}

/// One audit's state: discovery, the shared flows, the findings so far. Used by one task.
final class AuditRun {
    let probe: AuditProbe
    var findings: [AuditCheck: AuditFinding] = [:]
    var refreshProfile: String?
    /// Exchanges of shared flows the running check read, added to its evidence.
    private var borrowed: Set<Int> = []
    var metadata: ProviderMetadataView?
    var caches = FlowCaches()

    init(probe: AuditProbe) { self.probe = probe }

    var target: AuditTarget { probe.target }

    /// Every group in order.
    func all() async throws {
        try await discoveryChecks()
        guard metadata != nil else {
            for check in AuditCheck.allCases where findings[check] == nil {
                findings[check] = AuditFinding(
                    check: check, status: .skip,
                    summary: "not run: the issuer's discovery document could not be read")
            }
            throw AuditStop(reason: "discovery failed, so nothing else can be audited")
        }
        try await authorizationChecks()
        try await idTokenChecks()
        try await tokenChecks()
        try await refreshChecks()
        try await userInfoChecks()
        try await revocationChecks()
        try await dpopChecks()
        try await pushedAuthorizationChecks()
        try await logoutChecks()
        try await codeLifetimeCheck()
    }

    /// Runs `body` as `check` and records its finding, unless the check was not selected.
    func check(_ check: AuditCheck, _ body: () async throws -> Verdict) async throws {
        guard target.selection.contains(check) else {
            findings[check] = AuditFinding(
                check: check, status: .skip, summary: "not selected (--only / --skip)")
            return
        }
        borrowed = []
        let before = probe.sent
        let verdict: Verdict
        do {
            verdict = try await body()
        } catch let stop as AuditStop {
            throw stop
        } catch let failure as ProbeFailure {
            verdict = .skip("not checked: \(failure.message)")
        } catch {
            verdict = .skip("not checked: \(error)")
        }
        let own = before < probe.sent ? Array((before + 1)...probe.sent) : []
        let status: AuditStatus =
            switch verdict.kind {
            case .held: .pass
            case .broken: check.severity == .must ? .fail : .warn
            case .skipped: .skip
            }
        findings[check] = AuditFinding(
            check: check, status: status, summary: verdict.summary,
            evidence: Array(borrowed.union(own)).sorted())
    }

    /// Adds a shared flow's exchanges to the running check's evidence.
    func cite(_ exchanges: [Int]) { borrowed.formUnion(exchanges) }

    /// Whether any of `checks` is selected: shared flows are only run for selected checks.
    func wants(_ checks: AuditCheck...) -> Bool { checks.contains { target.selection.contains($0) } }

    /// Records every check of `checks` not yet recorded as skipped for `reason`.
    func skipAll(_ checks: [AuditCheck], _ reason: String) {
        for check in checks where findings[check] == nil {
            findings[check] = AuditFinding(
                check: check, status: .skip,
                summary: target.selection.contains(check) ? reason : "not selected (--only / --skip)")
        }
    }

    /// The exchanges sent while `body` ran.
    func exchanges<T>(_ body: () async throws -> T) async throws -> (T, [Int]) {
        let before = probe.sent
        let value = try await body()
        return (value, before < probe.sent ? Array((before + 1)...probe.sent) : [])
    }
}

/// The discovery document's members the audit uses, read once.
struct ProviderMetadataView {
    var object: [String: JSONValue]

    func string(_ name: String) -> String? { object[name]?.stringValue }
    func strings(_ name: String) -> [String]? {
        guard case .array(let values)? = object[name] else { return nil }
        return values.compactMap(\.stringValue)
    }
    func bool(_ name: String) -> Bool? {
        if case .bool(let value)? = object[name] { return value }
        return nil
    }

    var authorizationEndpoint: String? { string("authorization_endpoint") }
    var tokenEndpoint: String? { string("token_endpoint") }
    var userInfoEndpoint: String? { string("userinfo_endpoint") }
    var revocationEndpoint: String? { string("revocation_endpoint") }
    var endSessionEndpoint: String? { string("end_session_endpoint") }
    var jwksURI: String? { string("jwks_uri") }
    var authMethods: [String] { strings("token_endpoint_auth_methods_supported") ?? ["client_secret_basic"] }
    var dpopAlgorithms: [String]? { strings("dpop_signing_alg_values_supported") }
    var pushedAuthorizationEndpoint: String? { string("pushed_authorization_request_endpoint") }
    /// `require_pushed_authorization_requests` (RFC 9126 §5): every authorization request must
    /// be pushed first.
    var requiresPushedAuthorization: Bool { bool("require_pushed_authorization_requests") == true }
}
