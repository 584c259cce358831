import JSON
import YAML

/// Where the fields of a mapping in a step are read: the step's decoder (its reader, the
/// device's apps) and the path of the mapping as messages name it (`signIn`, `network.status`).
struct FieldReading {
    let decoder: StepDecoder
    let path: String

    var reader: ScenarioReader { decoder.reader }

    /// How messages name `key` of this mapping: `signIn.max_age`.
    func context(_ key: String) -> String { "\(path).\(key)" }

    /// The reading of the mapping at `key`.
    func nested(_ key: String) -> FieldReading { FieldReading(decoder: decoder, path: context(key)) }
}

/// One key of a step's arguments, declared once and bound to where its value lives in `Root`:
/// the schema's shape and the loader's allowed key (`argument`), the read of the key's value
/// (`decode`) and its writing back (`encode`) all come from this one declaration, as a
/// command-line option's parsing, help and value come from its declaration.
struct StepField<Root> {
    /// The key, the shape of its value, and whether it must be given.
    let argument: Argument
    /// Reads the key's value into the root.
    let decode: (inout Root, YAMLNode, FieldReading) throws(ScenarioError) -> Void
    /// The key's value, written from the root; nil leaves the key out (it holds its default).
    let encode: (Root) -> JSONValue?
    /// What a mapping without this key is said to need (`a code`: "network.status needs a
    /// code"); set for the keys that must be given.
    var missing: String?

    init(
        _ argument: Argument,
        decode: @escaping (inout Root, YAMLNode, FieldReading) throws(ScenarioError) -> Void,
        encode: @escaping (Root) -> JSONValue?
    ) {
        self.argument = argument
        self.decode = decode
        self.encode = encode
    }

    var key: String { argument.key }

    /// The field, its shape given a sentence for editors.
    func described(_ sentence: String) -> StepField {
        var field = StepField(
            Argument(key, .described(sentence, argument.shape), required: argument.required), decode: decode,
            encode: encode)
        field.missing = missing
        return field
    }

    /// The field, which must be given: a mapping without it "needs" `missing`.
    func required(_ missing: String) -> StepField {
        var field = StepField(Argument(key, argument.shape, required: true), decode: decode, encode: encode)
        field.missing = missing
        return field
    }
}

/// The fields of a mapping in a step, in the order the signature lists them and the loader
/// reads them.
struct StepFields<Root> {
    let fields: [StepField<Root>]

    init(_ fields: [StepField<Root>]) { self.fields = fields }

    /// The keys and their shapes, for the signature.
    var arguments: [Argument] { fields.map(\.argument) }

    /// The keys the mapping allows.
    var keys: [String] { fields.map(\.key) }

    /// The shape of the mapping.
    var shape: ValueShape { .mapping(arguments) }

    /// Reads `node`, a mapping of these keys only (another key is a problem recorded), into
    /// `root`: the keys that must be given first, then each given key in the declared order.
    func decode(_ node: YAMLNode, into root: inout Root, _ reading: FieldReading) throws(ScenarioError) {
        let mapping = try reading.reader.mapping(node, reading.path, allowed: keys)
        try decode(mapping, at: node, into: &root, reading)
    }

    /// Reads the keys of `mapping` (at `node`), whose keys were checked already, into `root`.
    func decode(_ mapping: YAMLMapping, at node: YAMLNode, into root: inout Root, _ reading: FieldReading)
        throws(ScenarioError)
    {
        for field in fields where mapping[field.key] == nil {
            if let missing = field.missing {
                throw reading.reader.error(node, "\(reading.path) needs \(missing)")
            }
        }
        for field in fields {
            guard let value = mapping[field.key] else { continue }
            try field.decode(&root, value, reading)
        }
    }

    /// The mapping read from `node`, starting from `initial`.
    func decode(_ node: YAMLNode, from initial: Root, _ reading: FieldReading) throws(ScenarioError) -> Root {
        var root = initial
        try decode(node, into: &root, reading)
        return root
    }

    /// The members written for `root`: each field that does not hold its default.
    func encode(_ root: Root) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for field in fields {
            if let value = field.encode(root) { members[field.key] = value }
        }
        return members
    }
}

extension StepFields: ExpressibleByArrayLiteral {
    init(arrayLiteral fields: StepField<Root>...) { self.init(fields) }
}

// MARK: Typed fields

extension StepField {
    /// A value written only when it differs from `defaultValue` (always, without one).
    private static func unlessDefault<Value: Equatable>(
        _ path: WritableKeyPath<Root, Value>, _ defaultValue: Value?, _ json: @escaping (Value) -> JSONValue
    ) -> (Root) -> JSONValue? {
        { root in
            let value = root[keyPath: path]
            // `JSONValue` is a nil literal too (`null`): nil here is no value at all.
            return value == defaultValue ? JSONValue?.none : json(value)
        }
    }

    /// Text, written when it is not `defaultValue` (always, without one); with a default,
    /// `null` leaves it, without one `null` is no text.
    static func text(
        _ key: String, _ path: WritableKeyPath<Root, String>, default defaultValue: String? = nil
    )
        -> StepField
    {
        StepField(
            Argument(key, .text),
            decode: { (root, node, reading) throws(ScenarioError) in
                if defaultValue != nil, node.isNull { return }
                root[keyPath: path] = try reading.reader.string(node, reading.context(key))
            },
            encode: unlessDefault(path, defaultValue, JSONValue.string))
    }

    /// Text, nil when not given (or `null`).
    static func text(_ key: String, _ path: WritableKeyPath<Root, String?>) -> StepField {
        StepField(
            Argument(key, .text),
            decode: { (root, node, reading) throws(ScenarioError) in
                guard !node.isNull else { return }
                root[keyPath: path] = try reading.reader.string(node, reading.context(key))
            },
            encode: { root in root[keyPath: path].map(JSONValue.string) })
    }

    /// `true` or `false`, written when it is not `defaultValue`.
    static func flag(_ key: String, _ path: WritableKeyPath<Root, Bool>, default defaultValue: Bool)
        -> StepField
    {
        StepField(
            Argument(key, .flag),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.bool(node, reading.context(key))
            },
            encode: unlessDefault(path, defaultValue, JSONValue.bool))
    }

    /// `true` or `false`, nil when not given.
    static func flag(_ key: String, _ path: WritableKeyPath<Root, Bool?>) -> StepField {
        StepField(
            Argument(key, .flag),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.bool(node, reading.context(key))
            },
            encode: { root in root[keyPath: path].map(JSONValue.bool) })
    }

    /// The schema's shape of an integer in `range`: its bounds, the upper one only when
    /// `statesMaximum` (a bound that is only the storage's, like `Int32.max`, is left to the
    /// loader).
    private static func integerShape(_ range: ClosedRange<Int>, statesMaximum: Bool) -> ValueShape {
        .integer(minimum: range.lowerBound, maximum: statesMaximum ? range.upperBound : nil)
    }

    /// A whole number in `range` (the schema's minimum and maximum and the loader's check),
    /// written when it is not `defaultValue` (always, without one).
    static func integer(
        _ key: String, _ path: WritableKeyPath<Root, Int>, range: ClosedRange<Int>,
        default defaultValue: Int? = nil
    ) -> StepField {
        StepField(
            Argument(key, integerShape(range, statesMaximum: true)),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.int(node, reading.context(key), range: range)
            },
            encode: unlessDefault(path, defaultValue) { .int(Int64($0)) })
    }

    /// A whole number in `range`, nil when not given.
    static func integer(
        _ key: String, _ path: WritableKeyPath<Root, Int?>, range: ClosedRange<Int>,
        statesMaximum: Bool = true
    ) -> StepField {
        StepField(
            Argument(key, integerShape(range, statesMaximum: statesMaximum)),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.int(node, reading.context(key), range: range)
            },
            encode: { root in root[keyPath: path].map { .int(Int64($0)) } })
    }

    /// One name of a closed set, by its raw value, written when it is not `defaultValue`.
    static func named<Name: RawRepresentable & CaseIterable & Equatable>(
        _ key: String, _ path: WritableKeyPath<Root, Name>, default defaultValue: Name? = nil,
        _ shape: ValueShape
    ) -> StepField where Name.RawValue == String {
        StepField(
            Argument(key, shape),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.named(node, reading.context(key), Name.self)
            },
            encode: unlessDefault(path, defaultValue) { .string($0.rawValue) })
    }

    /// One name of a closed set, nil when not given.
    static func named<Name: RawRepresentable & CaseIterable>(
        _ key: String, _ path: WritableKeyPath<Root, Name?>, _ shape: ValueShape
    ) -> StepField where Name.RawValue == String {
        StepField(
            Argument(key, shape),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.named(node, reading.context(key), Name.self)
            },
            encode: { root in root[keyPath: path].map { .string($0.rawValue) } })
    }

    /// Words: a list, or one space-separated string; written as a list, when not empty.
    static func words(_ key: String, _ path: WritableKeyPath<Root, [String]>) -> StepField {
        StepField(
            Argument(key, StepCatalog.words),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.strings(node, reading.context(key))
            },
            encode: { root in
                let words = root[keyPath: path]
                return words.isEmpty ? JSONValue?.none : .array(words.map(JSONValue.string))
            })
    }

    /// Words, nil when not given.
    static func words(_ key: String, _ path: WritableKeyPath<Root, [String]?>) -> StepField {
        StepField(
            Argument(key, StepCatalog.words),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.reader.strings(node, reading.context(key))
            },
            encode: { root in root[keyPath: path].map { .array($0.map(JSONValue.string)) } })
    }

    /// `app: <bundle id>`: an app of the device (default: the scenario's first).
    static func app(_ path: WritableKeyPath<Root, String?>) -> StepField {
        StepField(
            StepCatalog.app,
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try reading.decoder.appID(node, reading.context("app"))
            },
            encode: { root in root[keyPath: path].map(JSONValue.string) })
    }

    /// A nested mapping of its own fields, nil when not given; read from `initial`.
    static func mapping<Value>(
        _ key: String, _ path: WritableKeyPath<Root, Value?>, _ fields: StepFields<Value>, from initial: Value
    ) -> StepField {
        StepField(
            Argument(key, fields.shape),
            decode: { (root, node, reading) throws(ScenarioError) in
                root[keyPath: path] = try fields.decode(node, from: initial, reading.nested(key))
            },
            encode: { root in root[keyPath: path].map { .object(fields.encode($0)) } })
    }

    /// A non-empty list of mappings of their own fields, each read from `initial`; written
    /// when not empty.
    static func mappings<Item>(
        _ key: String, _ path: WritableKeyPath<Root, [Item]>, _ fields: StepFields<Item>, from initial: Item
    ) -> StepField {
        StepField(
            Argument(key, .list(fields.shape, minimumCount: 1)),
            decode: { (root, node, reading) throws(ScenarioError) in
                let itemReading = reading.nested(key)
                guard case .sequence(let sequence) = node, !sequence.items.isEmpty else {
                    throw reading.reader.error(
                        node,
                        "\(itemReading.path) must be a non-empty list of {\(fields.keys.joined(separator: ", "))}"
                    )
                }
                var items: [Item] = []
                for item in sequence.items {
                    items.append(try fields.decode(item, from: initial, itemReading))
                }
                root[keyPath: path] = items
            },
            encode: { root in
                let items = root[keyPath: path]
                return items.isEmpty ? JSONValue?.none : .array(items.map { .object(fields.encode($0)) })
            })
    }

    /// The field, its value of the shape `shape` (a definition of the schema's `$defs`) rather
    /// than the one derived from it.
    func shaped(_ shape: ValueShape) -> StepField {
        var field = StepField(
            Argument(key, shape, required: argument.required), decode: decode, encode: encode)
        field.missing = missing
        return field
    }
}
