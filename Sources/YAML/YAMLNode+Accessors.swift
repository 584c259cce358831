extension YAMLNode {
    /// Where the node starts in the text (for an alias, where the alias is).
    public var mark: YAMLMark {
        get {
            switch self {
            case .scalar(let scalar): return scalar.mark
            case .sequence(let sequence): return sequence.mark
            case .mapping(let mapping): return mapping.mark
            }
        }
        set {
            switch self {
            case .scalar(var scalar):
                scalar.mark = newValue
                self = .scalar(scalar)
            case .sequence(var sequence):
                sequence.mark = newValue
                self = .sequence(sequence)
            case .mapping(var mapping):
                mapping.mark = newValue
                self = .mapping(mapping)
            }
        }
    }

    /// The full tag written on the node, nil when none was written.
    public var tag: String? {
        switch self {
        case .scalar(let scalar): return scalar.tag
        case .sequence(let sequence): return sequence.tag
        case .mapping(let mapping): return mapping.tag
        }
    }

    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = self { return scalar }
        return nil
    }

    /// The items when the node is a sequence.
    public var sequence: [YAMLNode]? {
        if case .sequence(let sequence) = self { return sequence.items }
        return nil
    }

    /// The pairs, in document order, when the node is a mapping.
    public var mapping: [YAMLPair]? {
        if case .mapping(let mapping) = self { return mapping.pairs }
        return nil
    }

    /// For a mapping, the value of the first pair whose key is a scalar with this text; else nil.
    public subscript(key: String) -> YAMLNode? {
        if case .mapping(let mapping) = self { return mapping[key] }
        return nil
    }

    /// For a sequence, the item at `index` when there is one; else nil.
    public subscript(index: Int) -> YAMLNode? {
        guard case .sequence(let sequence) = self, sequence.items.indices.contains(index) else { return nil }
        return sequence.items[index]
    }

    /// The scalar's meaning under the core schema (see `YAMLScalar.resolved`); nil for collections.
    public var resolved: YAMLValue? { scalar?.resolved }

    /// The text of a scalar that resolves to a string (so not of `80`, `true` or `~`).
    public var string: String? {
        if case .string(let value)? = resolved { return value }
        return nil
    }

    /// The value of a scalar that resolves to an integer.
    public var int: Int? {
        if case .int(let value)? = resolved { return Int(exactly: value) }
        return nil
    }

    /// The value of a scalar that resolves to a double, or to an integer (converted).
    public var double: Double? {
        switch resolved {
        case .double(let value)?: return value
        case .int(let value)?: return Double(value)
        default: return nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value)? = resolved { return value }
        return nil
    }

    /// Whether the node is a scalar that resolves to null (`~`, `null`, or nothing at all).
    public var isNull: Bool { resolved == .null }

    /// What kind of value the node is, for messages such as "expected a mapping, found a sequence".
    public var typeDescription: String {
        switch self {
        case .sequence: return "a sequence"
        case .mapping: return "a mapping"
        case .scalar(let scalar):
            switch scalar.resolved {
            case .null: return "null"
            case .bool: return "a boolean"
            case .int: return "an integer"
            case .double: return "a floating-point number"
            case .string: return "a string"
            }
        }
    }
}
