import JSON
import Testing

@testable import Scenario

/// Every step declared by its fields reads and writes each of them: the list of steps and of
/// their fields is the declaration's (`StepKind.allCases`, each step's signature), so a new
/// step or a new field is checked without being named here.
@Suite struct StepCodecTests {
    /// The names of the steps whose arguments are declared fields.
    static let fieldSteps = StepKind.allCases.filter(\.codec.declaresFields).map(\.name)

    @Test("the steps declared by fields are the steps whose arguments are a mapping of keys")
    func declaredSteps() {
        let custom = Set(StepKind.allCases.map(\.name)).subtracting(Self.fieldSteps)
        // Device steps take nothing; the others are written otherwise than as keys of their own.
        let device = StepKind.allCases.filter { if case .device = $0 { true } else { false } }.map(\.name)
        let expected = Set(device + ["advance", "skew", "issuer", "parallel", "runFlow", "expect"])
        #expect(custom == expected)
    }

    @Test(
        "each field, set to a value other than its default, is read, written and read back",
        arguments: fieldSteps)
    func eachField(_ name: String) throws {
        let codec = try #require(StepKind(name: name)).codec
        #expect(FieldRoundTrip(codec).failures() == [])
    }

    @Test(
        "every field that can be set together, set, is written back as given and read back equal",
        arguments: fieldSteps)
    func allFields(_ name: String) throws {
        let check = FieldRoundTrip(try #require(StepKind(name: name)).codec)
        let given = check.fullestArguments()
        // At most the keys that exclude one another are left out (signIn's cancel and abandon,
        // wait's sheet and requests).
        #expect(check.arguments.count - given.count <= 1, "\(given.keys.sorted())")
        let action = try #require(check.read(given))
        let written = check.written(action)
        #expect(written == given)
        #expect(check.read(written) == action)
    }
}

/// Checks a step's declared fields through its declaration (`StepCodec`): a sample value for
/// each key, other than its default, is read, written back as given, and read back equal.
struct FieldRoundTrip {
    let codec: StepCodec
    /// The app the samples name (`app:` is checked against the device's apps).
    static let app = "sample.app"

    init(_ codec: StepCodec) { self.codec = codec }

    /// The keys of the step's arguments mapping, with their shapes.
    var arguments: [Argument] { Self.mappingArguments(codec.signature.arguments) ?? [] }

    private static func mappingArguments(_ shape: ValueShape?) -> [Argument]? {
        switch shape {
        case .mapping(let arguments, _)?: arguments
        case .either(let shapes)?: shapes.lazy.compactMap { mappingArguments($0) }.first
        case .described(_, let inner)?: mappingArguments(inner)
        default: nil
        }
    }

    /// Values `key` may be given, written as the encoder writes them: for a flag both (one is
    /// its default), else one that is no default (a number above the least, the last name of a
    /// closed set).
    static func samples(_ key: String, _ shape: ValueShape) -> [JSONValue] {
        switch shape {
        case .text: [.string(key == "app" ? app : "sample-\(key)")]
        case .flag: [true, false]
        case .integer(let minimum, let maximum): [.int(Int64(min((minimum ?? 0) + 1, maximum ?? Int.max)))]
        case .oneOf(let words): words.suffix(1).map(JSONValue.string)
        case .defined(let name):
            if let definition = StepCatalog.definitions[name] {
                samples(key, definition)
            } else {
                (ScenarioSchema.closedSetNames[name] ?? []).suffix(1).map(JSONValue.string)
            }
        case .mapping(let arguments, _): [.object(sampleMapping(arguments))]
        case .dictionary: [["sample-name": "sample-value"]]
        case .list(let item, _): samples(key, item).prefix(1).map { .array([$0]) }
        case .either(let shapes):
            // A list or a mapping, as the encoder writes them, before a scalar short form.
            Array(
                shapes.flatMap { samples(key, $0) }.sorted { structured($0) && !structured($1) }.prefix(1))
        case .described(_, let inner): samples(key, inner)
        case .presence, .openMapping, .null: []
        }
    }

    private static func structured(_ value: JSONValue) -> Bool {
        value.arrayValue != nil || value.objectValue != nil
    }

    /// A mapping with a sample for each of `arguments`.
    static func sampleMapping(_ arguments: [Argument]) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for argument in arguments {
            members[argument.key] = samples(argument.key, argument.shape).first
        }
        return members
    }

    /// The action the step with these arguments stands for; nil when the read refuses them or
    /// records a problem.
    func read(_ arguments: [String: JSONValue]) -> StepAction? {
        let reader = ScenarioReader(file: "fields.yaml")
        let decoder = StepDecoder(reader: reader, appIDs: [Self.app], env: [:], includeStack: [])
        do {
            let nameNode = try ScenarioLoader.document(Array(codec.name.utf8), file: "fields.yaml")
            let text = ScenarioYAML.render(.object(arguments))
            let node =
                arguments.isEmpty ? nil : try ScenarioLoader.document(Array(text.utf8), file: "fields.yaml")
            let action = try codec.decode(node, nameNode, decoder)
            return reader.problems.problems.isEmpty ? action : nil
        } catch {
            return nil
        }
    }

    /// The arguments written for `action` (none when it is written as its name alone).
    func written(_ action: StepAction) -> [String: JSONValue] {
        codec.encode(action)[codec.name]?.objectValue ?? [:]
    }

    /// The keys whose sample does not come back: not read, not written, or not read back equal.
    func failures() -> [String] {
        arguments.filter { !roundTrips($0) }.map(\.key)
    }

    /// Whether a sample of `argument`, given with the keys that must be (and, when the rules
    /// between keys want one, another), is written back as given and read back equal.
    private func roundTrips(_ argument: Argument) -> Bool {
        let required = arguments.filter { $0.required && $0.key != argument.key }
        let companions = [[]] + arguments.filter { !$0.required && $0.key != argument.key }.map { [$0] }
        for companion in companions {
            for sample in Self.samples(argument.key, argument.shape) {
                var given = Self.sampleMapping(required + companion)
                given[argument.key] = sample
                guard let action = read(given), written(action)[argument.key] == sample else { continue }
                return read(written(action)) == action
            }
        }
        return false
    }

    /// The keys that must be given, and then as many others as the rules between keys allow
    /// together, each with a sample that is written back.
    func fullestArguments() -> [String: JSONValue] {
        var given = Self.sampleMapping(arguments.filter(\.required))
        var added = true
        while added {
            added = false
            for argument in arguments where given[argument.key] == nil {
                for sample in Self.samples(argument.key, argument.shape) {
                    var attempt = given
                    attempt[argument.key] = sample
                    guard let action = read(attempt), written(action)[argument.key] == sample else {
                        continue
                    }
                    given = attempt
                    added = true
                    break
                }
            }
        }
        return given
    }
}
