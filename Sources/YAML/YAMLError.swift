public import Errors

/// Why YAML text could not be turned into nodes, and where.
public struct YAMLError: CodedError {
    public enum Code: String, Hashable, Sendable {
        /// libyaml refused the text: bad indentation, an unclosed quote, a tab, a stray character…
        case syntax
        /// The bytes are not UTF-8.
        case invalidUTF8
        /// The text is larger than the caller allowed.
        case tooLarge
        /// The tree, counting every node an alias copies, would exceed the allowed number of nodes.
        case tooManyNodes
        /// Collections nest deeper than allowed.
        case tooDeep
        /// A mapping has the same key twice (YAML 1.2 §3.2.1.1 requires unique keys).
        case duplicateKey
        /// `*name` with no `&name` before it in the same document, or inside its own anchored node.
        case unknownAlias
        /// `!!int`, `!!bool`, `!!float`, `!!null`, `!!seq` or `!!map` on a node that is not one.
        case invalidTaggedValue
        /// A merge key `<<` whose value is neither a mapping nor a sequence of mappings.
        case invalidMerge
        /// `parse` found a second document; `parseAll` accepts several.
        case multipleDocuments
        /// libyaml could not allocate memory.
        case outOfMemory
    }

    public let code: Code
    /// What is wrong, without the place: that is `fileName` and `mark`.
    public let message: String
    public let fileName: String?
    /// Where the problem is, when it has a place.
    public let mark: YAMLMark?

    public init(_ code: Code, _ message: String, fileName: String? = nil, mark: YAMLMark? = nil) {
        self.code = code
        self.message = message
        self.fileName = fileName
        self.mark = mark
    }

    /// `file:line:column: error: message`, leaving out the parts that are not known.
    public var description: String {
        var place: [String] = []
        if let fileName { place.append(fileName) }
        if let mark { place.append("\(mark.line):\(mark.column)") }
        let prefix = place.isEmpty ? "" : place.joined(separator: ":") + ": "
        return "\(prefix)error: \(message)"
    }
}
