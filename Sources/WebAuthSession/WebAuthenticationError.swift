/// Why a web authentication session ended without reaching its callback.
///
/// The codes follow `ASWebAuthenticationSessionError` where one exists (1 `canceledLogin`,
/// 3 `presentationContextInvalid`); the others name what a headless browser can observe.
public struct WebAuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The user dismissed the sheet (ASWebAuthenticationSessionError.canceledLogin, 1).
        case canceledLogin = "canceled_login"
        /// The presenting scene is not foreground-active (presentationContextInvalid, 3).
        case presentationContextInvalid = "presentation_context_invalid"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
