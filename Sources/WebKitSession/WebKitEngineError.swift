public import Errors

/// Why the WebKit engine could not do what was asked.
public struct WebKitEngineError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// The helper, WebKitGTK or Xvfb is not installed.
        case notInstalled = "not_installed"
        /// The helper did not come up.
        case cannotStart = "cannot_start"
        /// The helper died or stopped answering.
        case crashed
        /// The helper could not carry out a command (no such sheet, a script that threw).
        case commandFailed = "command_failed"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
