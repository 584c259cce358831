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

    /// Replaces the secrets `redaction` names by numbered placeholders, in place.
    public mutating func redact(_ redaction: Redaction) {
        exchanges = redaction.apply(to: exchanges)
    }
}
