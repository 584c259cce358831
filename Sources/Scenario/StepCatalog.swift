public import Device
public import JSON

/// Every step a scenario may name: the one declaration that `StepDecoder` decodes from, that
/// `ScenarioSchema` makes the JSON Schema's `step` from, that `signinsim list --steps` prints,
/// and that the scenario reference is checked against (`StepCatalogTests`).
///
/// Each family of steps is declared in one file of `Steps/`: its names (the app and device
/// steps are Device's `AppEvent` and `DeviceEvent`), what a decoded step holds, and each step's
/// `codec` (`StepCodec`). A step whose arguments are a mapping of keys is declared by its
/// fields (`StepField`), from which its signature, the loader's allowed keys, the schema, its
/// decoding and its encoding are all derived; a step written otherwise (a duration, a list of
/// steps, a file, a check per key) declares its shape, decoding and encoding together there.
/// The encoder's names (`StepAction.kind`) and the tests' lists come from `allCases`. Adding a
/// step means its declaration, its execution in the runner (the compiler points at each switch
/// left to extend: they are exhaustive), its test and a scenario (scenarios/README.md).
public enum StepKind: Hashable, Sendable, CaseIterable {
    /// An app lifecycle event (`launch`, `terminate`, …).
    case app(AppEvent)
    /// A device event (`reboot`, `lock`, `unlock`).
    case device(DeviceEvent)
    /// A call into the app's SDK.
    case sdk(SDKStep)
    /// A change to the world around the app: time, network, Apple, the issuer.
    case world(WorldStep)
    /// A step that orders or checks other steps.
    case flow(FlowStep)

    public static var allCases: [StepKind] {
        AppEvent.steps.map(StepKind.app) + DeviceEvent.allCases.map(StepKind.device)
            + SDKStep.allCases.map(StepKind.sdk) + WorldStep.allCases.map(StepKind.world)
            + FlowStep.allCases.map(StepKind.flow)
    }

    /// The step's name in a scenario.
    public var name: String {
        switch self {
        case .app(let event): event.name
        case .device(let action): action.rawValue
        case .sdk(let step): step.rawValue
        case .world(let step): step.rawValue
        case .flow(let step): step.rawValue
        }
    }

    /// The step a scenario names; nil for a name that is no step.
    public init?(name: String) {
        guard let kind = Self.byName[name] else { return nil }
        self = kind
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
}

/// What a value in a scenario may be: the JSON Schema states it, and the loader reads the keys
/// of mappings from it. The loader checks more (ranges it reports with the value, rules
/// between keys); the schema says what an editor can check.
public indirect enum ValueShape: Sendable {
    /// Any text.
    case text
    /// `true` or `false`.
    case flag
    /// A whole number, at least and at most these when given.
    case integer(minimum: Int? = nil, maximum: Int? = nil)
    /// One of these words.
    case oneOf([String])
    /// `present`, `absent`, `true` or `false`.
    case presence
    /// A definition of the schema's `$defs`, by name: a closed set or a shape used in places.
    case defined(String)
    /// A mapping with these keys only; with `onlyOne`, exactly one of them.
    case mapping([Argument], onlyOne: Bool = false)
    /// A mapping with these keys (the required ones present) and any others, of any value.
    case openMapping([Argument])
    /// A mapping of any keys to values of this shape (nil: any value, described).
    case dictionary(of: ValueShape?)
    /// A list of values of this shape.
    case list(ValueShape, minimumCount: Int? = nil)
    /// Any of these shapes.
    case either([ValueShape])
    /// Nothing: the key written with no value.
    case null
    /// The shape, with a sentence for editors.
    case described(String, ValueShape)

    /// The keys of the mapping this value is, or may be (the first mapping among `either`), or
    /// of each item of the list it is.
    public var keys: [String] {
        switch self {
        case .mapping(let arguments, _), .openMapping(let arguments): arguments.map(\.key)
        case .either(let shapes): shapes.lazy.map(\.keys).first { !$0.isEmpty } ?? []
        case .described(_, let shape), .list(let shape, _): shape.keys
        case .defined(let name): StepCatalog.definitions[name]?.keys ?? []
        default: []
        }
    }

    /// The shape of `key` in the mapping this value is (or may be).
    public subscript(key: String) -> ValueShape? {
        switch self {
        case .mapping(let arguments, _), .openMapping(let arguments): arguments.first { $0.key == key }?.shape
        case .either(let shapes): shapes.lazy.compactMap { $0[key] }.first
        case .described(_, let shape), .list(let shape, _): shape[key]
        case .defined(let name): StepCatalog.definitions[name]?[key]
        default: nil
        }
    }

    private static func properties(_ arguments: [Argument]) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "type": "object",
            "properties": .object(
                Dictionary(uniqueKeysWithValues: arguments.map { ($0.key, $0.shape.schema) })),
        ]
        let required = arguments.filter(\.required).map(\.key)
        if !required.isEmpty { members["required"] = .array(required.map(JSONValue.string)) }
        return members
    }

    /// The JSON Schema (draft 2020-12) of the value.
    public var schema: JSONValue {
        switch self {
        case .text: return ["type": "string"]
        case .flag: return ["type": "boolean"]
        case .integer(let minimum, let maximum):
            var members: [String: JSONValue] = ["type": "integer"]
            if let minimum { members["minimum"] = .int(Int64(minimum)) }
            if let maximum { members["maximum"] = .int(Int64(maximum)) }
            return .object(members)
        case .oneOf(let words): return ["enum": .array(words.map(JSONValue.string))]
        case .presence:
            return ["enum": .array(Presence.allCases.map { .string($0.rawValue) } + [true, false])]
        case .defined(let name): return ["$ref": .string("#/$defs/" + name)]
        case .mapping(let arguments, let onlyOne):
            var members = Self.properties(arguments)
            members["additionalProperties"] = false
            if onlyOne {
                members["minProperties"] = 1
                members["maxProperties"] = 1
            }
            return .object(members)
        case .openMapping(let arguments): return .object(Self.properties(arguments))
        case .dictionary(let value):
            return [
                "type": "object",
                "additionalProperties": value?.schema ?? [
                    "description": "A value to equal, or present / absent."
                ],
            ]
        case .list(let item, let minimumCount):
            var members: [String: JSONValue] = ["type": "array", "items": item.schema]
            if let minimumCount { members["minItems"] = .int(Int64(minimumCount)) }
            return .object(members)
        case .either(let shapes): return ["anyOf": .array(shapes.map(\.schema))]
        case .null: return ["type": "null"]
        case .described(let sentence, let shape):
            guard case .object(var members) = shape.schema else { return shape.schema }
            members["description"] = .string(sentence)
            return .object(members)
        }
    }
}

/// A key of a mapping in a scenario, and what its value may be.
public struct Argument: Sendable {
    public let key: String
    public let shape: ValueShape
    public let required: Bool

    public init(_ key: String, _ shape: ValueShape, required: Bool = false) {
        self.key = key
        self.shape = shape
        self.required = required
    }
}

/// How a step is written: its name alone, or a mapping from its name to its arguments.
public struct StepSignature: Sendable {
    public enum Form: Sendable {
        /// The name alone: `reboot`.
        case bare
        /// The name alone, or with arguments of this shape: `launch`, `launch: {app: …}`.
        case optional(ValueShape)
        /// The name with arguments of this shape: `advance: 1h`.
        case required(ValueShape)
    }

    public let form: Form
    /// A sentence for editors (the scenario reference says more).
    public let summary: String?

    /// The shape of the step's arguments (nil: it takes none).
    public var arguments: ValueShape? {
        switch form {
        case .bare: nil
        case .optional(let shape), .required(let shape): shape
        }
    }

    /// The keys of the step's arguments mapping.
    public var argumentKeys: [String] { arguments?.keys ?? [] }
}

extension StepKind {
    /// How the step is written and what its arguments are, from its declaration (`codec`).
    public var signature: StepSignature { codec.signature }
}

/// Shapes used in several places, and the argument every app-directed step takes.
public enum StepCatalog {
    /// `app: <bundle id>`: the app a step acts on (default: the scenario's first).
    static let app = Argument("app", .text)

    /// A word or a list of words (`scopes: openid profile` or `[openid, profile]`).
    static let words = ValueShape.either([.list(.text), .text])

    /// The shapes the schema names in `$defs` for the steps.
    public static let definitions: [String: ValueShape] = [
        "requestMatch": .described(
            "How many requests (at least 1), and only those to path when it is given.",
            ArmedRequests.matchFields.shape),
        "armedRequests": .described(
            "The next requests a network condition applies to: a count, or {count, path}.",
            .either([.integer(minimum: 1, maximum: 10_000), .defined("requestMatch")])),
        "requests": .mapping([
            Argument("path", .text), Argument("endpoint", .defined("endpoint")), Argument("method", .text),
            Argument("params", .dictionary(of: nil)), Argument("headers", .dictionary(of: nil)),
            Argument("count", .integer(minimum: 0, maximum: 1_000_000)),
            Argument("at_least", .integer(minimum: 0, maximum: 1_000_000)),
        ]),
        "issuerUserMatch": .described(
            "A user at the embedded issuer, found by email; the other keys are fields to match.",
            .openMapping([Argument("email", .text, required: true)])),
    ]

    /// The JSON Schema of one step: every step's way of being written, as alternatives.
    public static var stepSchema: JSONValue {
        ["anyOf": .array(StepKind.allCases.map(schema))]
    }

    private static func schema(of kind: StepKind) -> JSONValue {
        let signature = kind.signature
        let name = JSONValue.string(kind.name)
        let bare: JSONValue = ["const": name]
        func keyed(_ value: JSONValue) -> JSONValue {
            [
                "type": "object", "additionalProperties": false, "properties": .object([kind.name: value]),
                "required": [name],
            ]
        }
        var schema: JSONValue
        switch signature.form {
        case .bare: schema = bare
        case .optional(let shape):
            schema = ["anyOf": [bare, keyed(["anyOf": [ValueShape.null.schema, shape.schema]])]]
        case .required(let shape): schema = keyed(shape.schema)
        }
        if let summary = signature.summary, case .object(var members) = schema {
            members["description"] = .string(summary)
            schema = .object(members)
        }
        return schema
    }
}

extension StepKind {
    /// The keys of the mapping at `path` within the step's arguments (no path: the arguments'
    /// own keys), as the loader allows them.
    public func keys(_ path: String...) -> [String] {
        var shape = signature.arguments
        for key in path { shape = shape?[key] }
        return shape?.keys ?? []
    }
}
