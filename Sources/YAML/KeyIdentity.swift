/// What makes two mapping keys the same key: equal content, ignoring marks and styles.
///
/// Scalars compare by their core-schema value (YAML 1.2 §3.2.1.3: `1`, `0x1` and `0o1` are one key;
/// `1` and `"1"` are not). NaN keys are all equal to each other here, unlike `Double`.
enum KeyIdentity: Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case nan
    case string(String)
    /// A scalar with a tag outside the core schema: the tag is part of its identity.
    case tagged(tag: String, text: String)
    case sequence([KeyIdentity])
    case mapping([KeyIdentity: KeyIdentity])

    init(_ node: YAMLNode) {
        switch node {
        case .scalar(let scalar):
            if let tag = scalar.tag, !Self.coreTags.contains(tag) {
                self = .tagged(tag: tag, text: scalar.value)
                return
            }
            switch scalar.resolved {
            case .null: self = .null
            case .bool(let value): self = .bool(value)
            case .int(let value): self = .int(value)
            case .double(let value): self = value.isNaN ? .nan : .double(value)
            case .string(let value): self = .string(value)
            }
        case .sequence(let sequence):
            self = .sequence(sequence.items.map(KeyIdentity.init))
        case .mapping(let mapping):
            var members: [KeyIdentity: KeyIdentity] = [:]
            for pair in mapping.pairs { members[KeyIdentity(pair.key)] = KeyIdentity(pair.value) }
            self = .mapping(members)
        }
    }

    private static let coreTags: Set<String> = [
        YAMLTag.null, YAMLTag.bool, YAMLTag.int, YAMLTag.float, YAMLTag.str, YAMLTag.nonSpecific,
    ]
}
