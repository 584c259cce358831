public import Errors

/// Why JSON text could not be used.
public struct JSONError: CodedError {
    public enum Code: String, Sendable, Hashable {
        case malformed
        case tooLarge
        case wrongType
    }

    public let code: Code
    public let message: String
    /// Where the text went wrong (1-based), when the error is about a position.
    public let line: Int?
    public let column: Int?

    public init(_ code: Code, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        guard let line, let column else { return message }
        return "\(line):\(column): \(message)"
    }
}
