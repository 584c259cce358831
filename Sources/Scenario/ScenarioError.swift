/// Why a scenario file cannot run: it is not YAML, or it is YAML that is not a valid
/// scenario. Always with the place, so editors and CI annotations can point at it.
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// The file cannot be read (missing, too large, not UTF-8).
        case unreadable
        /// libyaml refused the text.
        case syntax
        /// Valid YAML, but not a valid scenario.
        case invalid
    }

    public var code: Code
    public var message: String
    public var location: SourceLocation

    public init(_ code: Code, _ message: String, at location: SourceLocation) {
        self.code = code
        self.message = message
        self.location = location
    }

    /// `file:line:column: message`.
    public var description: String { "\(location): \(message)" }
}
