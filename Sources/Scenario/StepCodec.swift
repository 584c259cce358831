import JSON
import YAML

/// How one step is written, declared once: its signature (from which the JSON Schema, the
/// loader's allowed keys and `signinsim list --steps` come), the reading of its arguments into
/// the action it stands for, and the writing of that action back.
///
/// A step whose arguments are a mapping of keys is declared by its fields (`fields`), from
/// which all three are derived; a step written otherwise (a duration, a list of steps, a file,
/// per-key checks) declares its shape, decoding and encoding here together (`custom`).
struct StepCodec {
    /// The step's name in a scenario.
    let name: String
    let signature: StepSignature
    /// The action the step stands for, from its arguments (nil: written bare) and the node of
    /// its name (where a missing argument is reported); nil for a step left out.
    let decode:
        (_ arguments: YAMLNode?, _ nameNode: YAMLNode, StepDecoder) throws(ScenarioError) -> StepAction?
    /// The step written back for an action of this step.
    let encode: (StepAction) -> JSONValue
    /// Whether the step's arguments are a mapping of declared fields (`StepField`), read and
    /// written by them alone: what `StepCodecTests` round-trips field by field.
    var declaresFields = false

    /// A step declared with its shape, decoding and encoding written out.
    /// With `declaresFields`, the shape is a mapping of declared fields which `decode` and
    /// `encode` read and write through them (a step whose arguments may also be absent
    /// otherwise than the fields' defaults say).
    static func custom(
        _ name: String, _ signature: StepSignature, declaresFields: Bool = false,
        decode:
            @escaping (_ arguments: YAMLNode?, _ nameNode: YAMLNode, StepDecoder) throws(ScenarioError) ->
            StepAction?,
        encode: @escaping (StepAction) -> JSONValue
    ) -> StepCodec {
        StepCodec(
            name: name, signature: signature, decode: decode, encode: encode, declaresFields: declaresFields)
    }

    /// A step written as its name alone.
    static func bare(_ name: String, _ action: StepAction) -> StepCodec {
        StepCodec(
            name: name, signature: StepSignature(form: .bare, summary: nil),
            decode: { (arguments, _, decoder) throws(ScenarioError) in
                if let arguments { throw decoder.reader.error(arguments, "\(name) takes no arguments") }
                return action
            },
            encode: { _ in .string(name) })
    }

    /// A step whose arguments are a mapping of `fields`, read into a `Root` starting from
    /// `initial`, checked by `rules` (the rules between keys, given the arguments), and made
    /// into the step's action by `action`; `root` is the way back from an action of this step.
    ///
    /// With `needs` the arguments must be given (the step alone "needs" them: `network needs
    /// conditions`), and the step is always written as a mapping; without, the step may be
    /// written alone, and is when every field holds its default.
    static func fields<Root>(
        _ name: String, summary: String?, needs: String? = nil, _ fields: StepFields<Root>,
        from initial: Root,
        rules: ((Root, YAMLNode, FieldReading) throws(ScenarioError) -> Void)? = nil,
        action: @escaping (Root) -> StepAction, root: @escaping (StepAction) -> Root?
    ) -> StepCodec {
        let form: StepSignature.Form = needs == nil ? .optional(fields.shape) : .required(fields.shape)
        var codec = StepCodec(
            name: name, signature: StepSignature(form: form, summary: summary),
            decode: { (arguments, nameNode, decoder) throws(ScenarioError) in
                guard let arguments else {
                    if let needs { throw decoder.reader.error(nameNode, "\(name) needs \(needs)") }
                    return action(initial)
                }
                let reading = FieldReading(decoder: decoder, path: name)
                let value = try fields.decode(arguments, from: initial, reading)
                try rules?(value, arguments, reading)
                return action(value)
            },
            encode: { action in
                let members = root(action).map(fields.encode) ?? [:]
                return needs == nil && members.isEmpty ? .string(name) : .object([name: .object(members)])
            })
        codec.declaresFields = true
        return codec
    }

    /// The step, which may also be written as a scalar standing for the mapping `{key: scalar}`
    /// (`handleRedirect: URL` for `handleRedirect: {url: URL}`).
    func acceptingScalar(for key: String) -> StepCodec {
        let form: StepSignature.Form =
            switch signature.form {
            case .bare: .bare
            case .optional(let shape): .optional(.either([.text, shape]))
            case .required(let shape): .required(.either([.text, shape]))
            }
        let decodeMapping = decode
        var codec = StepCodec(
            name: name, signature: StepSignature(form: form, summary: signature.summary),
            decode: { (arguments, nameNode, decoder) throws(ScenarioError) in
                guard let arguments, case .scalar = arguments else {
                    return try decodeMapping(arguments, nameNode, decoder)
                }
                let mapping = YAMLMapping(
                    [YAMLPair(key: .scalar(YAMLScalar(key, mark: arguments.mark)), value: arguments)],
                    mark: arguments.mark)
                return try decodeMapping(.mapping(mapping), nameNode, decoder)
            },
            encode: encode)
        codec.declaresFields = declaresFields
        return codec
    }
}

extension StepField {
    /// The field of a part of a larger root: the same key, bound to `path` within `Outer`.
    func within<Outer>(_ path: WritableKeyPath<Outer, Root>) -> StepField<Outer> {
        let decodePart = decode
        let encodePart = encode
        var field = StepField<Outer>(
            argument,
            decode: { (outer, node, reading) throws(ScenarioError) in
                try decodePart(&outer[keyPath: path], node, reading)
            },
            encode: { outer in encodePart(outer[keyPath: path]) })
        field.missing = missing
        return field
    }
}

extension StepFields {
    /// The fields of a part of a larger root, bound to `path` within `Outer`.
    func within<Outer>(_ path: WritableKeyPath<Outer, Root>) -> StepFields<Outer> {
        StepFields<Outer>(fields.map { $0.within(path) })
    }

    /// These fields, then `others`.
    static func + (fields: StepFields, others: StepFields) -> StepFields {
        StepFields(fields.fields + others.fields)
    }
}

extension StepKind {
    /// The step's one declaration: how it is written, read and written back.
    var codec: StepCodec {
        switch self {
        case .app(let event): event.codec
        case .device(let event): .bare(event.rawValue, .device(event))
        case .sdk(let step): step.codec
        case .world(let step): step.codec
        case .flow(let step): step.codec
        }
    }
}
