/// Why what a person did on a page read from its HTML alone (`lite`) may not be what a browser
/// that runs the page's scripts would have sent: script the engine skipped stood between the
/// press and the request.
///
/// Recorded for a consent refusal, where it decides how a refusal that still ended in a code
/// is explained: an issuer that ignored it, or a refusal that needed JavaScript.
public enum ScriptDependence: Hashable, Sendable, CustomStringConvertible {
    /// The button pressed has an `onclick` handler (HTML §8.1.8.2), which runs before the
    /// submission and may change what it sends (a hidden `action=approve` made `deny`).
    case buttonHandler(button: String)
    /// The form has an `onsubmit` handler, which may change the submission or replace it.
    case formHandler
    /// The page has scripts, which may attach handlers or rewrite the form after it loads.
    case pageScripts(count: Int)

    public var description: String {
        switch self {
        case .buttonHandler(let button): "the button \"\(button)\" has an onclick handler"
        case .formHandler: "the form has an onsubmit handler"
        case .pageScripts(let count): "the page has \(count) script(s), which may rewrite the form"
        }
    }

    /// What may stand between pressing `button` of `form` and the request, on `page`: nothing
    /// on a page whose scripts ran (`webkit`).
    static func of(_ button: WebPageButton, in form: WebPageForm, on page: WebPage) -> [ScriptDependence] {
        guard !page.isRendered else { return [] }
        var found: [ScriptDependence] = []
        if button.hasClickHandler { found.append(.buttonHandler(button: button.displayName)) }
        if form.hasSubmitHandler { found.append(.formHandler) }
        if page.scriptCount > 0 { found.append(.pageScripts(count: page.scriptCount)) }
        return found
    }
}
