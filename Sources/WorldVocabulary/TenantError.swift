/// Why a tenant file was refused, and where: the file, the line and column (1-based, columns
/// counting characters), and what is wrong.
///
/// Problems with the file as a whole (not found, too large) have no line or column.
public struct TenantError: Error, Hashable, Sendable, CustomStringConvertible {
    public let fileName: String
    public let line: Int?
    public let column: Int?
    /// What is wrong, without the place.
    public let message: String

    public init(fileName: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.fileName = fileName
        self.line = line
        self.column = column
        self.message = message
    }

    /// `path:line:column`, or as much of it as is known.
    public var location: String {
        guard let line else { return fileName }
        guard let column else { return "\(fileName):\(line)" }
        return "\(fileName):\(line):\(column)"
    }

    /// `path:line:column: error: message`, the form compilers use.
    public var description: String { "\(location): error: \(message)" }
}
