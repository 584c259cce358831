/// The shape the errors of every module share: a stable code from a closed set, for programs
/// and tests, and a message for people that names what was wrong (and never holds a secret).
///
/// A domain declares its own error type (`JOSEError`, `HTTPError`, …) with its own codes, so a
/// `throws(JOSEError)` says which failures a call can have; this protocol gives them one
/// description, `code: message`.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    associatedtype Code: RawRepresentable, Hashable, Sendable where Code.RawValue == String
    var code: Code { get }
    var message: String { get }
}

extension CodedError {
    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
