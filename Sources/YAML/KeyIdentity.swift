/// What makes two mapping keys the same key: equal content, ignoring marks and styles.
///
/// Scalars compare by their core-schema value (YAML 1.2 §3.2.1.3: `1`, `0x1` and `0o1` are one key;
/// `1` and `"1"` are not). NaN keys are all equal to each other here, unlike `Double`.
///
/// Each identity carries its hash, made once from its children's: hashing a key for the
/// duplicate check is then constant time however deep the key. Hashing the whole content at
/// every level made keys nested as keys cubic in their depth: a 1 KB document the `yaml` fuzz
/// target found took 2 s a run in the fuzz build, and to `signinsim validate` in a debug build
/// it took 0.21 s, `{{…{a: x}…: x}: x}` 200 levels deep 1.10 s; now 0.06 s and 0.15 s
/// (`python3 -c "s='a'\nfor i in range(200): s='{'+s+': x}'\nprint(s)" > n.yaml; time
/// .build/debug/signinsim validate n.yaml`).
struct KeyIdentity: Hashable {
    enum Content: Equatable {
        case null
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case nan
        case string(String)
        /// A scalar with a tag outside the core schema: the tag is part of its identity.
        case tagged(tag: String, text: String)
        case sequence([KeyIdentity])
        /// A mapping's entries, in any order: equal when they hold the same pairs.
        case mapping([KeyIdentity: KeyIdentity])
    }

    let content: Content
    private let digest: Int

    init(_ node: YAMLNode) {
        switch node {
        case .scalar(let scalar):
            if let tag = scalar.tag, !Self.coreTags.contains(tag) {
                self.init(.tagged(tag: tag, text: scalar.value))
                return
            }
            switch scalar.resolved {
            case .null: self.init(.null)
            case .bool(let value): self.init(.bool(value))
            case .int(let value): self.init(.int(value))
            case .double(let value): self.init(value.isNaN ? .nan : .double(value))
            case .string(let value): self.init(.string(value))
            }
        case .sequence(let sequence):
            self.init(.sequence(sequence.items.map(KeyIdentity.init)))
        case .mapping(let mapping):
            var members: [KeyIdentity: KeyIdentity] = [:]
            for pair in mapping.pairs { members[KeyIdentity(pair.key)] = KeyIdentity(pair.value) }
            self.init(.mapping(members))
        }
    }

    init(_ content: Content) {
        self.content = content
        var hasher = Hasher()
        switch content {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .nan: hasher.combine(Double.nan.bitPattern)
        case .string(let value): hasher.combine(value)
        case .tagged(let tag, let text):
            hasher.combine(tag)
            hasher.combine(text)
        case .sequence(let items):
            hasher.combine(items.count)
            for item in items { hasher.combine(item.digest) }
        case .mapping(let members):
            // Order-free, as the entries are: the pairs' own hashes, sorted.
            hasher.combine(members.count)
            for pair in members.map({ [$0.key.digest, $0.value.digest].hashValue }).sorted() {
                hasher.combine(pair)
            }
        }
        digest = hasher.finalize()
    }

    static func == (left: KeyIdentity, right: KeyIdentity) -> Bool {
        left.digest == right.digest && left.content == right.content
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }

    private static let coreTags: Set<String> = [
        YAMLTag.null, YAMLTag.bool, YAMLTag.int, YAMLTag.float, YAMLTag.str, YAMLTag.nonSpecific,
    ]
}
