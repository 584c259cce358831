public import JSON

/// What an audit found: one finding per check, in the catalogue's order, with what it cost.
public struct Scorecard: Sendable, Hashable {
    public var issuer: String
    public var clientID: String
    /// The web sheet's engine (`lite` or `webkit`).
    public var engine: String
    public var findings: [AuditFinding]
    /// Every request the audit sent, its sheets' included: the HAR's entry count.
    public var requests: Int
    /// Wall time of the whole audit, in milliseconds.
    public var milliseconds: Int
    /// The issuer rotation profile the refresh checks saw behaviour closest to, with why;
    /// nil when the refresh checks did not run.
    public var refreshProfile: String?
    /// Why the audit stopped before its end (a transport failure streak, the request budget);
    /// the checks it did not reach are skipped.
    public var stoppedEarly: String?

    public init(
        issuer: String, clientID: String, engine: String, findings: [AuditFinding], requests: Int,
        milliseconds: Int, refreshProfile: String?, stoppedEarly: String?
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.engine = engine
        self.findings = findings
        self.requests = requests
        self.milliseconds = milliseconds
        self.refreshProfile = refreshProfile
        self.stoppedEarly = stoppedEarly
    }

    /// How many findings have `status`.
    public func count(_ status: AuditStatus) -> Int { findings.count { $0.status == status } }

    public func finding(_ check: AuditCheck) -> AuditFinding? { findings.first { $0.check == check } }

    /// The JSON report (`--format json`): the findings in order, with the totals.
    public var json: JSONValue {
        var totals: [String: JSONValue] = [:]
        for status in AuditStatus.allCases { totals[status.rawValue] = .int(Int64(count(status))) }
        var object: [String: JSONValue] = [
            "issuer": .string(issuer),
            "client_id": .string(clientID),
            "browser": .string(engine),
            "checks": .array(findings.map(\.json)),
            "totals": .object(totals),
            "requests": .int(Int64(requests)),
            "milliseconds": .int(Int64(milliseconds)),
        ]
        object["refresh_profile"] = refreshProfile.map(JSONValue.string) ?? .null
        object["stopped_early"] = stoppedEarly.map(JSONValue.string) ?? .null
        return .object(object)
    }
}
