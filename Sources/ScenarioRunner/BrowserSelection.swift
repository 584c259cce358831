public import HTTPCore
public import Scenario
public import WebKitSession

/// Which engine a run's web sheets use, and the WebKit engine when the run has one.
///
/// An app's `browser`, else its scenario's, else the run's `--browser`, else the automatic
/// choice: `lite` against the embedded issuer (its pages are plain HTML forms, and `lite` signs
/// in in milliseconds), `webkit` against any other issuer when WebKit is installed (real issuers'
/// pages run scripts), `lite` otherwise.
public struct BrowserSelection: Sendable {
    /// `--browser`; nil for the automatic choice.
    public var requested: BrowserEngine?
    /// The engine webkit sheets run in; nil when the run has none.
    public var webKit: WebKitEngine?

    public init(requested: BrowserEngine? = nil, webKit: WebKitEngine? = nil) {
        self.requested = requested
        self.webKit = webKit
    }

    /// The engine for apps of `scenario` that name none.
    public func runDefault(for scenario: Scenario) -> BrowserEngine {
        if let requested { return requested }
        return Self.automatic(embedded: scenario.issuer.isEmbedded, webKitInstalled: webKit != nil)
    }

    /// The automatic choice (docs/browser.md).
    public static func automatic(embedded: Bool, webKitInstalled: Bool) -> BrowserEngine {
        embedded || !webKitInstalled ? .lite : .webkit
    }

    /// Whether `scenario` shows a sheet in `engine` with this selection.
    public func scenario(_ scenario: Scenario, uses engine: BrowserEngine) -> Bool {
        scenario.usesBrowser(engine, runDefault: runDefault(for: scenario))
    }
}
