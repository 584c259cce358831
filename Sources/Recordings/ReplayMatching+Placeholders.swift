import ScenarioReports

/// The redaction rules replay matching needs, from the HAR writer's `Redaction`, so that what
/// counts as a placeholder and as an app-supplied credential is defined once.
extension ReplayMatching {
    /// Whether a recorded value is a redaction placeholder (`<REDACTED:password:1>`).
    @inline(__always)
    static func isPlaceholder(_ value: String) -> Bool { Redaction.isPlaceholder(value) }

    /// Whether a parameter carries a credential the app supplies itself (a password,
    /// `client_secret`, `client_assertion`), which a placeholder stands in for with any value.
    @inline(__always)
    static func isAppCredential(lowercasedName name: String) -> Bool {
        Redaction.isAppCredential(lowercasedName: name)
    }
}
