public import Errors
public import HTTPCore
public import Scenario
public import WebAuthSession

/// A sign-in that ended in a session although the person refused consent in its sheet: the
/// run's `consent_refusal_ignored`.
///
/// A refusal must come back as an `access_denied` error response (RFC 6749 §4.1.2.1), never as
/// a code. The SDK cannot tell (it never learns what the person pressed), so the harness
/// decides from the sheet's trace, which records the refusal, and from what the engine knew of
/// the page: a refusal sent by `webkit`, or by `lite` as a plain form submission, was ignored by
/// the issuer; one sent by `lite` past script it skipped (an `onclick`, an `onsubmit`, scripts
/// that may rewrite the form) may never have been a refusal on the wire.
public struct ConsentRefusalIgnored: CodedError {
    /// Why the refusal ended in a code.
    public enum Cause: Hashable, Sendable {
        /// The engine sent the refusal as the page meant it (scripts run, or none involved),
        /// and the issuer answered with a code all the same.
        case issuerIgnoredRefusal
        /// `lite` submitted the refusal without running script it depends on, so what went out
        /// may have been an approval.
        case refusalNeedsJavaScript([ScriptDependence])
    }

    public var code: CallFinding { .consentRefusalIgnored }
    public var cause: Cause
    public var engine: BrowserEngine
    /// The refusing button's label.
    public var button: String
    /// The consent page, without its query.
    public var page: String

    /// The finding for a sheet of a sign-in that ended in a session; nil when the person did
    /// not refuse consent in it.
    public init?(trace: [WebPageVisit], engine: BrowserEngine) {
        guard
            let refusal = trace.last(where: {
                if case .deniedConsent = $0.action { return true }
                return false
            }), case .deniedConsent(let button) = refusal.action
        else { return nil }
        self.engine = engine
        self.button = button
        self.page = URLParts.stripQueryAndFragment(refusal.url)
        self.cause =
            engine == .lite && !refusal.scriptDependence.isEmpty
            ? .refusalNeedsJavaScript(refusal.scriptDependence) : .issuerIgnoredRefusal
    }

    public var message: String {
        let refused =
            "the person refused consent (\"\(button)\") on \(page), and the sign-in still ended in a session"
        switch cause {
        case .issuerIgnoredRefusal:
            let how =
                engine == .webkit
                ? "the webkit engine ran the page's scripts, so the refusal went out as the page meant it"
                : "the refusal was a plain form submission, with no script involved"
            return "\(refused): the issuer ignored the refusal (\(how))"
        case .refusalNeedsJavaScript(let dependence):
            let handlers = dependence.contains {
                if case .pageScripts = $0 { return false }
                return true
            }
            let reasons = dependence.map(\.description).joined(separator: "; ")
            let verdict =
                handlers
                ? "the refusal needs JavaScript that the lite engine cannot run"
                : "the refusal may need JavaScript that the lite engine cannot run, or the issuer ignored it"
            return "\(refused): \(verdict) (\(reasons)), so what went out may have been an approval; "
                + "run it with --browser webkit to refuse as a browser would"
        }
    }
}
