/// A failure to set up or drive a simulated world (not a failure of the app under test).
public struct SimulatorError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
