/// Turns the events of one stream into node trees: expands aliases, applies merge keys, refuses
/// duplicate keys and mistyped tags, and enforces the depth and node-count limits as it goes, so
/// that an alias bomb is stopped after at most `maximumNodes` nodes' worth of work.
struct TreeBuilder {
    /// A finished node with what the limits need to know about it.
    struct Subtree {
        var node: YAMLNode
        /// Nodes in the tree, counting every node an alias copies.
        var size: Int
        /// Collections nested in the tree: 0 for a scalar, 1 for `[a]`, 2 for `[[a]]`.
        var height: Int
    }

    /// A sequence or mapping whose end event has not come yet.
    private struct OpenCollection {
        let isMapping: Bool
        let tag: String?
        let anchor: String?
        let style: YAMLCollectionStyle
        let mark: YAMLMark
        var items: [YAMLNode] = []
        var pairs: [YAMLPair] = []
        var pendingKey: YAMLNode?
        var keyMarks: [KeyIdentity: YAMLMark] = [:]
        var mergeKeyMark: YAMLMark?
        /// Where the `<<` pair stood among `pairs`, and the mappings it merges, first one winning.
        var merge: (position: Int, sources: [YAMLMapping])?
        var size = 1
        var height = 1
    }

    private let fileName: String?
    private let maximumDepth: Int
    private let maximumNodes: Int
    private var open: [OpenCollection] = []
    private var anchors: [String: Subtree] = [:]
    private var root: Subtree?
    /// Nodes built so far in the whole stream, alias copies included.
    private(set) var nodeCount = 0

    init(fileName: String?, maximumDepth: Int, maximumNodes: Int) {
        self.fileName = fileName
        self.maximumDepth = maximumDepth
        self.maximumNodes = maximumNodes
    }

    /// Anchors belong to one document (YAML 1.2 §3.2.2.2), so each document starts afresh.
    mutating func documentStarted() {
        open = []
        anchors = [:]
        root = nil
    }

    /// The document's root node; nil only if libyaml ended a document without one.
    mutating func documentEnded() -> YAMLNode? {
        defer { root = nil }
        return root?.node
    }

    mutating func scalarParsed(_ scalar: YAMLScalar, anchor: String?) throws(YAMLError) {
        try count(1, at: scalar.mark)
        if let tag = scalar.tag, YAMLScalar.resolve(scalar.value, style: scalar.style, tag: tag) == nil {
            throw error(
                .invalidTaggedValue, "\(Self.quoted(scalar.value)) is not a valid \(Self.shortTag(tag))",
                at: scalar.mark)
        }
        try attach(Subtree(node: .scalar(scalar), size: 1, height: 0), anchor: anchor)
    }

    mutating func aliasParsed(_ name: String, mark: YAMLMark) throws(YAMLError) {
        guard var subtree = anchors[name] else {
            if open.contains(where: { $0.anchor == name }) {
                throw error(
                    .unknownAlias,
                    "alias *\(name) refers to a node that contains it; recursive aliases are "
                        + "not supported", at: mark)
            }
            throw error(.unknownAlias, "alias *\(name) has no anchor &\(name) before it", at: mark)
        }
        guard open.count + subtree.height <= maximumDepth else {
            throw error(
                .tooDeep, "alias *\(name) nests collections deeper than \(maximumDepth) levels", at: mark)
        }
        try count(subtree.size, at: mark)
        subtree.node.mark = mark
        try attach(subtree, anchor: nil)
    }

    mutating func collectionStarted(
        isMapping: Bool, tag: String?, anchor: String?, style: YAMLCollectionStyle, mark: YAMLMark
    ) throws(YAMLError) {
        guard open.count < maximumDepth else {
            throw error(.tooDeep, "collections nest deeper than \(maximumDepth) levels", at: mark)
        }
        if let tag, Self.scalarOnlyTags.contains(tag) || tag == (isMapping ? YAMLTag.seq : YAMLTag.map) {
            throw error(
                .invalidTaggedValue,
                "a \(isMapping ? "mapping" : "sequence") is not a valid "
                    + Self.shortTag(tag), at: mark)
        }
        try count(1, at: mark)
        open.append(OpenCollection(isMapping: isMapping, tag: tag, anchor: anchor, style: style, mark: mark))
    }

    mutating func collectionEnded() throws(YAMLError) {
        guard let collection = open.popLast() else { return }
        let node: YAMLNode
        if collection.isMapping {
            node = .mapping(
                YAMLMapping(
                    Self.applyingMerge(to: collection), style: collection.style, tag: collection.tag,
                    mark: collection.mark))
        } else {
            node = .sequence(
                YAMLSequence(
                    collection.items, style: collection.style, tag: collection.tag, mark: collection.mark))
        }
        try attach(
            Subtree(node: node, size: collection.size, height: collection.height), anchor: collection.anchor)
    }

    // MARK: - Building

    private mutating func attach(_ subtree: Subtree, anchor: String?) throws(YAMLError) {
        if let anchor { anchors[anchor] = subtree }
        guard !open.isEmpty else {
            root = subtree
            return
        }
        let top = open.count - 1
        open[top].size += subtree.size
        open[top].height = max(open[top].height, subtree.height + 1)
        guard open[top].isMapping else {
            open[top].items.append(subtree.node)
            return
        }
        guard let key = open[top].pendingKey else {
            try keyParsed(subtree.node)
            return
        }
        open[top].pendingKey = nil
        if Self.isMergeKey(key) {
            open[top].merge = (open[top].pairs.count, try mergeSources(subtree.node))
        } else {
            open[top].pairs.append(YAMLPair(key: key, value: subtree.node))
        }
    }

    /// Records a key of the innermost mapping, refusing one it already has.
    private mutating func keyParsed(_ key: YAMLNode) throws(YAMLError) {
        let top = open.count - 1
        if Self.isMergeKey(key) {
            if let first = open[top].mergeKeyMark {
                throw duplicateKey("<<", at: key.mark, first: first)
            }
            open[top].mergeKeyMark = key.mark
        } else {
            let identity = KeyIdentity(key)
            if let first = open[top].keyMarks[identity] {
                throw duplicateKey(Self.describeKey(key), at: key.mark, first: first)
            }
            open[top].keyMarks[identity] = key.mark
        }
        open[top].pendingKey = key
    }

    /// The mappings a merge key's value names: one mapping, or a sequence of them.
    private func mergeSources(_ value: YAMLNode) throws(YAMLError) -> [YAMLMapping] {
        switch value {
        case .mapping(let mapping):
            return [mapping]
        case .sequence(let sequence):
            var sources: [YAMLMapping] = []
            for item in sequence.items {
                guard case .mapping(let mapping) = item else {
                    throw error(
                        .invalidMerge,
                        "a merge key's sequence must hold only mappings, not "
                            + item.typeDescription, at: item.mark)
                }
                sources.append(mapping)
            }
            return sources
        case .scalar:
            throw error(
                .invalidMerge,
                "a merge key needs a mapping or a sequence of mappings, not "
                    + value.typeDescription, at: value.mark)
        }
    }

    /// The mapping's pairs with merged ones in place of `<<`: keys written in the mapping win over
    /// merged ones, and an earlier merged mapping wins over a later one (YAML 1.1 merge key type).
    private static func applyingMerge(to collection: OpenCollection) -> [YAMLPair] {
        guard let merge = collection.merge else { return collection.pairs }
        var seen = Set(collection.keyMarks.keys)
        var merged: [YAMLPair] = []
        for source in merge.sources {
            for pair in source.pairs where seen.insert(KeyIdentity(pair.key)).inserted {
                merged.append(pair)
            }
        }
        var pairs = collection.pairs
        pairs.insert(contentsOf: merged, at: merge.position)
        return pairs
    }

    private mutating func count(_ nodes: Int, at mark: YAMLMark) throws(YAMLError) {
        nodeCount += nodes
        guard nodeCount <= maximumNodes else {
            throw error(
                .tooManyNodes,
                "the document expands to more than \(maximumNodes) nodes "
                    + "(aliases count every node they copy)", at: mark)
        }
    }

    // MARK: - Helpers

    private static let scalarOnlyTags: Set<String> = [
        YAMLTag.null, YAMLTag.bool, YAMLTag.int, YAMLTag.float, YAMLTag.str, YAMLTag.merge,
    ]

    private static func isMergeKey(_ key: YAMLNode) -> Bool {
        guard case .scalar(let scalar) = key, scalar.value == "<<" else { return false }
        return scalar.tag == YAMLTag.merge || (scalar.tag == nil && scalar.style == .plain)
    }

    private func duplicateKey(_ key: String, at mark: YAMLMark, first: YAMLMark) -> YAMLError {
        error(
            .duplicateKey,
            "duplicate key \(key); it was first defined at line \(first.line), column "
                + "\(first.column)", at: mark)
    }

    private func error(_ code: YAMLError.Code, _ message: String, at mark: YAMLMark) -> YAMLError {
        YAMLError(code, message, fileName: fileName, mark: mark)
    }

    private static func describeKey(_ key: YAMLNode) -> String {
        if case .scalar(let scalar) = key { return quoted(scalar.value) }
        return "(\(key.typeDescription) used as a key)"
    }

    /// Text for a message: quoted, and shortened so that a huge scalar does not flood the output.
    private static func quoted(_ text: String) -> String {
        let limit = 40
        let shown = text.unicodeScalars.count > limit ? String(text.unicodeScalars.prefix(limit)) + "…" : text
        return "'\(shown)'"
    }

    /// `!!int` for the core tags, the tag itself otherwise.
    private static func shortTag(_ tag: String) -> String {
        let prefix = "tag:yaml.org,2002:"
        return tag.hasPrefix(prefix) ? "!!" + tag.dropFirst(prefix.count) : tag
    }
}
