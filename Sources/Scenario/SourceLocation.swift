/// A place in a scenario file: what every error and every failed step points at.
public struct SourceLocation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The file as it was named on the command line (or the including file's folder + include).
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form editors and CI annotations jump to.
    public var description: String { "\(file):\(line):\(column)" }
}
