public import Errors

/// Why an HTTP exchange, or the reading of an HTTP message, failed.
public struct HTTPError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// The URL cannot be used (not absolute, unsupported scheme, bad characters).
        case invalidURL
        /// No connection could be made (refused, unreachable, name not resolved).
        case connectionFailed
        /// The connection broke before the whole response arrived.
        case connectionLost
        /// The time limit passed.
        case timeout
        /// The response is larger than the client accepts.
        case responseTooLarge
        /// The body cannot be read as what it claims or is required to be.
        case malformedBody
        /// The body's content type is not one this reader takes.
        case unsupportedMediaType
        /// The request was cancelled by its caller.
        case cancelled
        /// Anything else the transport reported.
        case transport
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
