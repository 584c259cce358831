public import JSON

extension YAMLNode {
    /// The node as a JSON value: scalars as the YAML 1.2 core schema resolves them, sequences as
    /// arrays, mappings as objects. JSON's object keys are strings, so a mapping key that is not
    /// a scalar (a sequence or a mapping used as a key) is refused with `nonStringKey(key)`, the
    /// error of the caller's own domain, placed at that key.
    public func json<Failure: Error>(nonStringKey: (YAMLNode) -> Failure) throws(Failure) -> JSONValue {
        switch self {
        case .scalar(let scalar):
            switch scalar.resolved {
            case .null: return .null
            case .bool(let value): return .bool(value)
            case .int(let value): return .int(value)
            case .double(let value): return .double(value)
            case .string(let value): return .string(value)
            }
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for item in sequence.items { items.append(try item.json(nonStringKey: nonStringKey)) }
            return .array(items)
        case .mapping(let mapping):
            var members: [String: JSONValue] = [:]
            for pair in mapping.pairs {
                guard let key = pair.key.scalar?.value else { throw nonStringKey(pair.key) }
                members[key] = try pair.value.json(nonStringKey: nonStringKey)
            }
            return .object(members)
        }
    }
}
