/// A JSON document as a value: the common currency of JOSE claims, OAuth messages and reports.
///
/// Objects keep their members in a dictionary; serialisation sorts keys so that the same value
/// always produces the same bytes (RFC 8259 leaves member order unspecified, and reproducible
/// runs need one).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// Largest document `parse` accepts, in bytes. Larger input is refused before decoding.
    public static let defaultMaximumSize = 4 * 1024 * 1024

    /// Parses UTF-8 JSON text (RFC 8259) into a value.
    /// - Throws: `JSONError` naming what is wrong; never traps on bad input.
    public static func parse(
        _ bytes: some Collection<UInt8>, maximumSize: Int = defaultMaximumSize
    ) throws(JSONError) -> JSONValue {
        guard bytes.count <= maximumSize else {
            throw JSONError(.tooLarge, "JSON text is \(bytes.count) bytes; the limit is \(maximumSize)")
        }
        guard !bytes.isEmpty else { throw JSONError(.malformed, "JSON text is empty", line: 1, column: 1) }
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer) }
        }
        if let parsed { return try parsed.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer) }
        }.get()
    }

    /// Parses JSON text given as a string.
    public static func parse(_ text: String, maximumSize: Int = defaultMaximumSize) throws(JSONError)
        -> JSONValue
    {
        try parse(Array(text.utf8), maximumSize: maximumSize)
    }

    /// Parses JSON text that must be an object.
    public static func parseObject(
        _ bytes: some Collection<UInt8>, maximumSize: Int = defaultMaximumSize
    ) throws(JSONError) -> [String: JSONValue] {
        guard case .object(let members) = try parse(bytes, maximumSize: maximumSize) else {
            throw JSONError(.wrongType, "expected a JSON object")
        }
        return members
    }
}

// MARK: - Accessors

extension JSONValue {
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value as an integer when it is one exactly (a JSON number without a fraction).
    public var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Member lookup on an object; `nil` for anything else.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral,
    ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Codable

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
