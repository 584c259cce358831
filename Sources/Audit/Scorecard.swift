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

extension Scorecard {
    /// The JSON Schema (draft 2020-12) of `--format json`, made from the catalogue: the check
    /// ids, groups and statuses are the enums'. `docs/audit.schema.json` is this, written out
    /// (a test keeps them the same).
    public static var jsonSchema: JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        let finding: JSONValue = [
            "type": "object",
            "required": strings([
                "id", "title", "group", "status", "summary", "reference", "severity", "evidence",
            ]),
            "additionalProperties": false,
            "properties": [
                "id": ["enum": strings(AuditCheck.allCases.map(\.rawValue))],
                "title": ["type": "string"],
                "group": ["enum": strings(AuditCheck.Group.allCases.map(\.rawValue))],
                "status": ["enum": strings(AuditStatus.allCases.map(\.rawValue))],
                "summary": ["type": "string"],
                "reference": ["type": "string"],
                "severity": ["enum": strings(["must", "should"])],
                "conformance_test": ["type": "string"],
                "evidence": ["type": "array", "items": ["type": "integer", "minimum": 1]],
            ],
        ]
        let totals: JSONValue = [
            "type": "object",
            "required": strings(AuditStatus.allCases.map(\.rawValue)),
            "additionalProperties": false,
            "properties": .object(
                Dictionary(
                    uniqueKeysWithValues: AuditStatus.allCases.map {
                        ($0.rawValue, ["type": "integer", "minimum": 0] as JSONValue)
                    })),
        ]
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "signinsim audit --format json",
            "type": "object",
            "required": strings([
                "issuer", "client_id", "browser", "checks", "totals", "requests", "milliseconds",
                "refresh_profile",
                "stopped_early",
            ]),
            "additionalProperties": false,
            "properties": [
                "issuer": ["type": "string"],
                "client_id": ["type": "string"],
                "browser": ["enum": ["lite", "webkit"]],
                "checks": [
                    "type": "array", "items": finding, "minItems": .int(Int64(AuditCheck.allCases.count)),
                    "maxItems": .int(Int64(AuditCheck.allCases.count)),
                ],
                "totals": totals,
                "requests": ["type": "integer", "minimum": 0],
                "milliseconds": ["type": "integer", "minimum": 0],
                "refresh_profile": ["type": ["string", "null"]],
                "stopped_early": ["type": ["string", "null"]],
            ],
        ]
    }
}
