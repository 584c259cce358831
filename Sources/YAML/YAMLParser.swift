/// Reads YAML text into `YAMLNode` trees with libyaml's parser, refusing what a config file should
/// not contain: several documents where one is expected, duplicate keys, dangling aliases, alias
/// bombs, runaway nesting, oversized input and bytes that are not UTF-8.
///
/// Scalars are resolved with the YAML 1.2 core schema (see `YAMLScalar.resolved`), whatever `%YAML`
/// directive the text carries. Merge keys (`<<: *base`) are applied.
public enum YAMLParser {
    /// Largest input accepted, in bytes.
    public static let defaultMaximumSize = 8 << 20
    /// Deepest nesting of sequences and mappings accepted.
    public static let defaultMaximumDepth = 256
    /// Most nodes a stream may produce, counting every node an alias copies; this is what stops
    /// a "billion laughs" document, whose few hundred bytes would expand to 10⁹ nodes.
    public static let defaultMaximumNodes = 100_000

    /// Parses text holding at most one document.
    /// - Returns: The document's root node; nil when the text holds no document (empty, or only
    ///   comments). An explicit empty document (`---` alone) is a null scalar.
    /// - Throws: `YAMLError`, with `fileName` and the mark of the problem; `.multipleDocuments` at
    ///   the start of a second document.
    public static func parse(
        _ text: String, fileName: String? = nil, maximumSize: Int = defaultMaximumSize,
        maximumDepth: Int = defaultMaximumDepth, maximumNodes: Int = defaultMaximumNodes
    ) throws(YAMLError) -> YAMLNode? {
        try parse(
            Array(text.utf8), fileName: fileName, maximumSize: maximumSize, maximumDepth: maximumDepth,
            maximumNodes: maximumNodes)
    }

    /// Parses UTF-8 bytes, as read from a file, holding at most one document.
    public static func parse(
        _ bytes: some Collection<UInt8>, fileName: String? = nil, maximumSize: Int = defaultMaximumSize,
        maximumDepth: Int = defaultMaximumDepth, maximumNodes: Int = defaultMaximumNodes
    ) throws(YAMLError) -> YAMLNode? {
        let limits = Limits(size: maximumSize, depth: maximumDepth, nodes: maximumNodes)
        return try documents(in: bytes, fileName: fileName, limits: limits, allowingSeveral: false).first
    }

    /// Parses text holding any number of documents (separated by `---`), in order.
    public static func parseAll(
        _ text: String, fileName: String? = nil, maximumSize: Int = defaultMaximumSize,
        maximumDepth: Int = defaultMaximumDepth, maximumNodes: Int = defaultMaximumNodes
    ) throws(YAMLError) -> [YAMLNode] {
        try parseAll(
            Array(text.utf8), fileName: fileName, maximumSize: maximumSize, maximumDepth: maximumDepth,
            maximumNodes: maximumNodes)
    }

    /// Parses UTF-8 bytes holding any number of documents; `maximumNodes` is for all of them together.
    public static func parseAll(
        _ bytes: some Collection<UInt8>, fileName: String? = nil, maximumSize: Int = defaultMaximumSize,
        maximumDepth: Int = defaultMaximumDepth, maximumNodes: Int = defaultMaximumNodes
    ) throws(YAMLError) -> [YAMLNode] {
        let limits = Limits(size: maximumSize, depth: maximumDepth, nodes: maximumNodes)
        return try documents(in: bytes, fileName: fileName, limits: limits, allowingSeveral: true)
    }

    private struct Limits {
        var size: Int
        var depth: Int
        var nodes: Int
    }

    private static func documents(
        in bytes: some Collection<UInt8>, fileName: String?, limits: Limits, allowingSeveral: Bool
    ) throws(YAMLError) -> [YAMLNode] {
        let size = bytes.count
        guard size <= limits.size else {
            throw YAMLError(
                .tooLarge, "the text is \(size) bytes; the limit is \(limits.size)", fileName: fileName)
        }
        let reader = try LibYAMLEventReader(bytes, fileName: fileName)
        if let offset = TextPosition.firstInvalidUTF8Offset(in: reader.input) {
            let byte = String(reader.input[offset], radix: 16, uppercase: true)
            throw YAMLError(
                .invalidUTF8, "the text is not valid UTF-8 (a sequence starting with byte 0x\(byte))",
                fileName: fileName, mark: TextPosition.mark(ofByteOffset: offset, in: reader.input))
        }
        var builder = TreeBuilder(fileName: fileName, maximumDepth: limits.depth, maximumNodes: limits.nodes)
        var documents: [YAMLNode] = []
        while true {
            switch try reader.next() {
            case .streamStart:
                break
            case .streamEnd:
                return documents
            case .documentStart(let mark):
                if !allowingSeveral && !documents.isEmpty {
                    throw YAMLError(
                        .multipleDocuments, "a second document starts here; only one is expected",
                        fileName: fileName, mark: mark)
                }
                builder.documentStarted()
            case .documentEnd:
                if let root = builder.documentEnded() { documents.append(root) }
            case .alias(let anchor, let mark):
                try builder.aliasParsed(anchor, mark: mark)
            case .scalar(let scalar, let anchor):
                try builder.scalarParsed(scalar, anchor: anchor)
            case .sequenceStart(let tag, let anchor, let style, let mark):
                try builder.collectionStarted(
                    isMapping: false, tag: tag, anchor: anchor, style: style, mark: mark)
            case .mappingStart(let tag, let anchor, let style, let mark):
                try builder.collectionStarted(
                    isMapping: true, tag: tag, anchor: anchor, style: style, mark: mark)
            case .sequenceEnd, .mappingEnd:
                try builder.collectionEnded()
            }
        }
    }
}
