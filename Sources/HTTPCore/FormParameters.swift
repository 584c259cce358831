/// Name–value pairs from a query string or a form body, in order, repeats kept.
///
/// Repeats are kept so that a server can refuse them: RFC 6749 §3.1 says request and response
/// parameters must not be included more than once.
public struct FormParameters: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Pair: Hashable, Sendable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var pairs: [Pair]

    public init() { pairs = [] }
    init(capacity: Int) {
        pairs = []
        pairs.reserveCapacity(capacity)
    }
    public init(_ pairs: [Pair]) { self.pairs = pairs }
    public init(_ pairs: [(String, String)]) { self.pairs = pairs.map { Pair(name: $0.0, value: $0.1) } }

    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = elements.map { Pair(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[Pair]> { pairs.makeIterator() }

    public var count: Int { pairs.count }
    public var isEmpty: Bool { pairs.isEmpty }

    /// The first value of the parameter, or `nil`. Setting replaces every value of that name.
    public subscript(name: String) -> String? {
        get { pairs.first { $0.name == name }?.value }
        set {
            if let newValue {
                if let index = pairs.firstIndex(where: { $0.name == name }) {
                    pairs[index].value = newValue
                    var seen = false
                    pairs.removeAll { pair in
                        guard pair.name == name else { return false }
                        defer { seen = true }
                        return seen
                    }
                } else {
                    pairs.append(Pair(name: name, value: newValue))
                }
            } else {
                pairs.removeAll { $0.name == name }
            }
        }
    }

    /// Every value of the parameter, in order.
    public func values(for name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    public mutating func append(_ name: String, _ value: String) {
        pairs.append(Pair(name: name, value: value))
    }

    /// Names that occur more than once, in order of their first repeat.
    public var repeatedNames: [String] {
        var seen = Set<String>()
        var repeated: [String] = []
        for pair in pairs where !seen.insert(pair.name).inserted && !repeated.contains(pair.name) {
            repeated.append(pair.name)
        }
        return repeated
    }

    /// The parameters as a dictionary when no name repeats.
    public var uniqueDictionary: [String: String]? {
        var result: [String: String] = [:]
        for pair in pairs {
            guard result.updateValue(pair.value, forKey: pair.name) == nil else { return nil }
        }
        return result
    }
}
