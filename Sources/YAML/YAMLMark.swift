/// A position in YAML text as a person counts it: line 1 is the first line, column 1 its first character.
///
/// Columns count Unicode scalars, not bytes, as libyaml does; a byte-order mark does not count.
public struct YAMLMark: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`, the form compilers use.
    public var description: String { "\(line):\(column)" }

    public static func < (lhs: YAMLMark, rhs: YAMLMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
