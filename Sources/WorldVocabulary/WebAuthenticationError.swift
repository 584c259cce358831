public import Errors
public import HTTPCore

/// Why a web authentication session ended without reaching its callback.
///
/// The codes follow `ASWebAuthenticationSessionError` where one exists (1 `canceledLogin`,
/// 3 `presentationContextInvalid`); the others name what a headless browser can observe.
/// Messages name the URL and status involved but never a callback URL's query, which may
/// carry a code.
public struct WebAuthenticationError: CodedError {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The user dismissed the sheet (ASWebAuthenticationSessionError.canceledLogin, 1).
        case canceledLogin = "canceled_login"
        /// The presenting scene is not foreground-active (presentationContextInvalid, 3).
        case presentationContextInvalid = "presentation_context_invalid"
        /// The app already presents a web authentication session; only one sheet can be up.
        case alreadyPresenting = "already_presenting"
        /// The start URL, or a `Location`, is not a URL the browser can load.
        case invalidURL = "invalid_url"
        /// A request failed below HTTP (connection, time limit, size); `cause` says how.
        case network
        /// The session's deadline passed before the callback was reached.
        case timeout
        /// More redirects in a row than the browser follows.
        case redirectLoop = "redirect_loop"
        /// A redirect to a scheme that is neither http(s) nor the callback's.
        case foreignScheme = "foreign_scheme"
        /// A page larger than the browser's limit.
        case pageTooLarge = "page_too_large"
        /// A 4xx or 5xx answer: the server showed an error page instead of the flow.
        case errorPage = "error_page"
        /// A page the scripted user cannot act on (no login or consent form, not HTML, …).
        case unexpectedPage = "unexpected_page"
        /// The login form came back after the credentials were submitted: they were refused.
        case loginRejected = "login_rejected"
        /// The user was to deny consent, but the flow reached the callback with a code without
        /// showing a consent page: there was nothing to deny.
        case consentNotShown = "consent_not_shown"
        /// The page builds its forms with JavaScript, which the `lite` engine does not run.
        case javascriptRequired = "javascript_required"
        /// The browser engine is not installed or could not start.
        case browserUnavailable = "browser_unavailable"
        /// The browser engine crashed with the sheet up.
        case browserCrashed = "browser_crashed"
    }

    public let code: Code
    public let message: String
    /// The URL of the request that led to the error, when there was one.
    public let url: String?
    /// The HTTP status of the response that led to the error, when there was one.
    public let status: Int?
    /// The transport's error, for `.network`.
    public let cause: HTTPError?

    public init(
        _ code: Code, _ message: String, url: String? = nil, status: Int? = nil, cause: HTTPError? = nil
    ) {
        self.code = code
        self.message = message
        self.url = url
        self.status = status
        self.cause = cause
    }

}
