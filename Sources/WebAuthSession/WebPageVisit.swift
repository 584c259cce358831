public import HTTPCore
public import WorldVocabulary

/// One step of a web authentication session's trace, for reports: the request the browser
/// made, the status it got (RFC 9110), the page's title and what the user (or browser) did
/// next, as a browser's history of the sheet would show it.
///
/// Field values typed by the user and callback URLs never appear: they carry passwords and
/// codes.
public struct WebPageVisit: Hashable, Sendable {
    /// What happened after the response arrived.
    public enum Action: Hashable, Sendable {
        /// A 3xx whose `Location` the browser loaded next (resolved).
        case followedRedirect(to: String)
        /// The user typed into these fields of a login form and submitted it.
        case submittedLogin(fields: [String])
        /// The user gave their identifier on the first page of a two-step login (a username, no
        /// password yet) and went on.
        case submittedIdentifier(fields: [String])
        /// The user pressed the consent button with this label.
        case approvedConsent(button: String)
        case deniedConsent(button: String)
        /// The user pressed the button that confirms a sign-out.
        case confirmedSignOut(button: String)
        /// The user pressed a button that only moves on (Continue) on a page that asked nothing
        /// else of them.
        case continued(button: String)
        /// The user closed the sheet on a page where a sign-out had nothing more to do.
        case closed
        /// The response's `Location` was the callback: the sheet closed.
        case reachedCallback
        /// The user cancelled here.
        case canceled
        /// The user walked away here; the sheet stayed up.
        case abandoned
        /// The session failed on this response.
        case failed(WebAuthenticationError.Code)
    }

    public var method: HTTPMethod
    public var url: String
    /// `nil` when no response came (a network error, or a cancel before loading), or when the
    /// engine does not see it (a page loaded over HTTPS in `webkit`).
    public var status: Int?
    public var title: String?
    public var action: Action
    /// How the person found the inputs and buttons they used (`password: autocomplete=current-password`,
    /// `pressed "Sign in": it says what the person came to do`, `#otp: the override #otp`).
    public var rules: [String]
    /// What the sheet showed when the person acted or the sheet ended here (`webkit` only).
    public var screenshot: WebPageScreenshot?
    /// For a consent refusal on a page read from its HTML (`lite`): the script that may have
    /// stood between the press and the request. Empty where the page's scripts ran.
    public var scriptDependence: [ScriptDependence]

    public init(
        method: HTTPMethod, url: String, status: Int?, title: String? = nil, action: Action,
        rules: [String] = [],
        screenshot: WebPageScreenshot? = nil, scriptDependence: [ScriptDependence] = []
    ) {
        self.method = method
        self.url = url
        self.status = status
        self.title = title
        self.action = action
        self.rules = rules
        self.screenshot = screenshot
        self.scriptDependence = scriptDependence
    }
}

/// How a web authentication session ended, and the pages it went through: the
/// `ASWebAuthenticationSession.CompletionHandler` pair (callback URL or error) plus the trace.
public struct WebAuthenticationOutcome: Hashable, Sendable {
    /// The callback URL exactly as the server sent it, or why there is none.
    public var result: Result<String, WebAuthenticationError>
    public var trace: [WebPageVisit]

    public init(result: Result<String, WebAuthenticationError>, trace: [WebPageVisit]) {
        self.result = result
        self.trace = trace
    }

    /// The callback URL, or the error.
    public func callbackURL() throws(WebAuthenticationError) -> String { try result.get() }
}

extension WebPageVisit.Action: CustomStringConvertible {
    /// What the person or the browser did, as a report says it.
    public var description: String {
        switch self {
        case .followedRedirect(let location):
            "followed the redirect to \(URLParts.stripQueryAndFragment(location))"
        case .submittedLogin(let fields): "submitted the login form (\(fields.joined(separator: ", ")))"
        case .submittedIdentifier(let fields): "gave the identifier (\(fields.joined(separator: ", ")))"
        case .approvedConsent(let button): "approved consent (\(button))"
        case .deniedConsent(let button): "refused consent (\(button))"
        case .confirmedSignOut(let button): "confirmed the sign-out (\(button))"
        case .continued(let button): "pressed \(button)"
        case .closed: "closed the sheet"
        case .reachedCallback: "reached the callback"
        case .canceled: "cancelled the sheet"
        case .abandoned: "walked away with the sheet up"
        case .failed(let code): "the sheet ended: \(code.rawValue)"
        }
    }

    /// Whether the sheet ended here with an error.
    public var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }

    /// Whether the browser only followed a redirect here.
    public var isRedirect: Bool {
        if case .followedRedirect = self { return true }
        return false
    }
}
