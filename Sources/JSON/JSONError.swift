/// Why JSON text could not be used.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case malformed
        case tooLarge
        case wrongType
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            if let underlying = context.underlyingError {
                return "JSON text is not valid: \(String(describing: underlying))"
            }
            return "JSON text is not valid: \(context.debugDescription)"
        default:
            return "JSON text is not valid"
        }
    }
}
