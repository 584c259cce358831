public import JSON

/// How a check ended.
public enum AuditStatus: String, Sendable, Hashable, CaseIterable {
    /// The rule held, as the evidence shows.
    case pass
    /// A SHOULD of the specifications, or a recommendation for native apps, was not kept.
    case warn
    /// A MUST was broken.
    case fail
    /// The check did not run; the finding says why (not advertised, not selected, nothing to
    /// check with). A skipped check states nothing about the issuer.
    case skip
}

/// One check's result: its status, what was seen, and the exchanges that show it.
public struct AuditFinding: Sendable, Hashable {
    public var check: AuditCheck
    public var status: AuditStatus
    /// What was seen, in a sentence or two; for a skip, why the check did not run.
    public var summary: String
    /// The exchanges behind the finding, numbered from 1 in the order they were sent, as the
    /// audit's HAR (`--har`) lists its entries.
    public var evidence: [Int]

    public init(check: AuditCheck, status: AuditStatus, summary: String, evidence: [Int] = []) {
        self.check = check
        self.status = status
        self.summary = summary
        self.evidence = evidence
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(check.rawValue),
            "title": .string(check.title),
            "group": .string(check.group.rawValue),
            "status": .string(status.rawValue),
            "summary": .string(summary),
            "reference": .string(check.reference),
            "severity": .string(check.severity.rawValue),
            "evidence": .array(evidence.map { .int(Int64($0)) }),
        ]
        if let test = check.conformanceTest { object["conformance_test"] = .string(test) }
        return .object(object)
    }
}
