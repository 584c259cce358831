public import Errors

/// Why a server could not start.
public struct HTTPServerError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// The configuration cannot work (bad host, port out of range, zero limits).
        case invalidConfiguration
        /// Another socket already listens on the address and port.
        case addressInUse
        /// The socket could not be created, bound or put into listening state.
        case bindFailed
        /// libmicrohttpd refused to start.
        case startFailed
        /// `start()` was called on a server that had already started.
        case alreadyStarted
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
