/// One node of a YAML document: a scalar, a sequence or a mapping, each with its start mark and tag.
///
/// Aliases are already expanded: a node reached through `*name` is a copy of the anchored node whose
/// own mark is that of the alias (where the value is used), while the nodes inside keep the marks of
/// the text they came from. Equality compares marks, styles and tags too, not only content.
public enum YAMLNode: Hashable, Sendable {
    case scalar(YAMLScalar)
    case sequence(YAMLSequence)
    case mapping(YAMLMapping)
}

/// How a sequence or mapping was written: indented lines, or brackets and braces.
public enum YAMLCollectionStyle: String, Hashable, Sendable {
    case block
    case flow
}

/// An ordered list of nodes: `- a` lines or `[a, b]`.
public struct YAMLSequence: Hashable, Sendable {
    public var items: [YAMLNode]
    public var style: YAMLCollectionStyle
    /// The full tag written on the sequence (`!!seq` arrives as `tag:yaml.org,2002:seq`), nil when none.
    public var tag: String?
    /// Where the sequence starts: its first `-`, its `[`, or its anchor or tag when it has one.
    public var mark: YAMLMark

    public init(
        _ items: [YAMLNode], style: YAMLCollectionStyle = .block, tag: String? = nil, mark: YAMLMark
    ) {
        self.items = items
        self.style = style
        self.tag = tag
        self.mark = mark
    }
}

/// A key and its value, in the order the mapping was written.
public struct YAMLPair: Hashable, Sendable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// Keys and values in document order; the parser guarantees keys are unique (YAML 1.2 §3.2.1.1).
public struct YAMLMapping: Hashable, Sendable {
    public var pairs: [YAMLPair]
    public var style: YAMLCollectionStyle
    /// The full tag written on the mapping (`!!map` arrives as `tag:yaml.org,2002:map`), nil when none.
    public var tag: String?
    /// Where the mapping starts: its first key, its `{`, or its anchor or tag when it has one.
    public var mark: YAMLMark

    public init(
        _ pairs: [YAMLPair], style: YAMLCollectionStyle = .block, tag: String? = nil, mark: YAMLMark
    ) {
        self.pairs = pairs
        self.style = style
        self.tag = tag
        self.mark = mark
    }

    /// The value of the first pair whose key is a scalar with exactly this text, quoted or not.
    public subscript(key: String) -> YAMLNode? {
        pair(forKey: key)?.value
    }

    /// The first pair whose key is a scalar with exactly this text; gives the key's mark too.
    public func pair(forKey key: String) -> YAMLPair? {
        pairs.first { $0.key.scalar?.value == key }
    }
}
