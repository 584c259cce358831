public import ScenarioReports

/// Redaction on import: a capture from the field holds live secrets (the user's password, the
/// refresh tokens that are still valid), so `signinsim replay --redact` and
/// `import-har --redact` hide them right after reading it, before anything is derived or
/// printed.
///
/// The rules and placeholders are the HAR writer's (`Redaction`, `Redaction.apply(to:)`), so a
/// capture redacted on import looks exactly like one `signinsim run --har-dir` wrote with the
/// same kinds hidden, and replays the same way: each distinct secret has its own numbered
/// placeholder, refresh tokens keep their equality (a race still presents one token twice), and
/// credentials the app supplies itself match whatever the replayed app sends
/// (`ReplayMatching`).
extension HARCapture {
    /// The capture with the secrets `redaction` names replaced by numbered placeholders.
    public func redacted(_ redaction: Redaction) -> HARCapture {
        var capture = self
        capture.redact(redaction)
        return capture
    }

    /// Replaces the secrets `redaction` names by numbered placeholders, in place: in the
    /// exchanges, and in the steps and settings a signinsim run recorded beside them.
    public mutating func redact(_ redaction: Redaction) {
        let steps = pages.indices.filter { pages[$0].step != nil }
        var documents = steps.compactMap { pages[$0].step }
        if let run { documents.append(.object(run)) }
        let redacted = redaction.apply(to: exchanges, documents: documents)
        exchanges = redacted.exchanges
        for (position, page) in steps.enumerated() { pages[page].step = redacted.documents[position] }
        if run != nil, let last = redacted.documents.last { run = last.objectValue }
    }
}
