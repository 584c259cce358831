/// One header field: a name and a value, as sent.
public struct HTTPField: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1).
///
/// Order and repetition are kept, because some fields may not be combined: several
/// `Set-Cookie` fields are the rule (RFC 6265 §3), and a request with two `DPoP` fields must be
/// refused rather than merged (RFC 9449 §4.3).
public struct HTTPHeaders: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPField]

    public init() { fields = [] }

    public init(_ fields: [HTTPField]) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field, or `nil`.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            if let newValue { replaceOrAdd(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// Every value of the field, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// Appends a field, keeping any earlier ones with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Replaces every field of that name with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }
}

extension String {
    /// ASCII case-insensitive equality, which is what header names and URI schemes use.
    @inlinable
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        for (a, b) in zip(lhs, rhs) where a != b {
            let lowerA = (a >= 65 && a <= 90) ? a | 0x20 : a
            let lowerB = (b >= 65 && b <= 90) ? b | 0x20 : b
            if lowerA != lowerB { return false }
        }
        return true
    }
}
