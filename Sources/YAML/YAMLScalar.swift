/// A scalar as written: its text after unquoting and folding, how it was quoted, its tag and mark.
///
/// What the text means (null, a boolean, a number or a string) is `resolved`.
public struct YAMLScalar: Hashable, Sendable {
    /// The five ways of writing a scalar (YAML 1.2 §7.3, §8.1).
    public enum Style: String, Hashable, Sendable {
        case plain
        case singleQuoted
        case doubleQuoted
        /// `|`: line breaks kept.
        case literal
        /// `>`: line breaks folded into spaces.
        case folded
    }

    /// The content: quotes removed, escapes decoded, block scalars folded and chomped.
    public var value: String
    public var style: Style
    /// The full tag written on the scalar (`!!int` arrives as `tag:yaml.org,2002:int`, a lone `!` as
    /// `!`), nil when none was written.
    public var tag: String?
    /// Where the scalar starts: its first character, opening quote, indicator, anchor or tag.
    public var mark: YAMLMark

    public init(_ value: String, style: Style = .plain, tag: String? = nil, mark: YAMLMark) {
        self.value = value
        self.style = style
        self.tag = tag
        self.mark = mark
    }
}
