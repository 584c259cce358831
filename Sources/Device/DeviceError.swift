public import Errors

/// A failure of the simulated device itself (not of the app or the network).
public struct DeviceError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// The app is not installed, not running, or in a state that forbids the action.
        case invalidLifecycleState = "invalid_lifecycle_state"
        /// A persisted file could not be read or written.
        case storage = "storage"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
