import Errors
import SignInSDK
import YAML

/// Steps: a bare name (`launch`) or a mapping with one key, the step's name, whose value holds
/// its arguments (`signIn: {username: bob@example.com}`).
///
/// This file finds the step's kind and hands its arguments to the step's declaration
/// (`StepKind.codec`, declared beside its family in `Steps/`); the helpers here are the ones
/// families share.
struct StepDecoder {
    let reader: ScenarioReader
    /// The apps of the device; nil when the header's apps have a problem, and then unchecked.
    let appIDs: [String]?
    let env: [String: String]
    /// The files being included, outermost first, to refuse include cycles.
    let includeStack: [String]

    func steps(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> [Step] {
        guard case .sequence(let sequence) = node else {
            throw reader.error(node, "\(context) must be a list of steps, found \(node.typeDescription)")
        }
        // A step with a problem is recorded and left out; the next is checked all the same.
        var steps: [Step] = []
        for item in sequence.items {
            if let step = reader.problems.attempt({ () throws(ScenarioError) in try step(item) }) ?? nil {
                steps.append(step)
            }
        }
        return steps
    }

    /// One step; nil for a `runFlow` whose `when` is false.
    func step(_ node: YAMLNode) throws(ScenarioError) -> Step? {
        let name: String
        let arguments: YAMLNode?
        let nameNode: YAMLNode
        switch node {
        case .scalar:
            name = try reader.string(node, "a step")
            arguments = nil
            nameNode = node
        case .mapping(let mapping):
            guard mapping.pairs.count == 1, let pair = mapping.pairs.first else {
                throw reader.error(
                    node,
                    "a step is a mapping with exactly one key, the step's name; found \(mapping.pairs.count) keys"
                )
            }
            name = try reader.string(pair.key, "a step name")
            arguments = pair.value.isNull ? nil : pair.value
            nameNode = pair.key
        case .sequence:
            throw reader.error(node, "a step must be a name or a mapping, found a sequence")
        }
        let location = reader.location(nameNode)
        guard let action = try action(name, arguments, at: nameNode) else { return nil }
        return Step(action, name: name, location: location)
    }

    private func action(_ name: String, _ arguments: YAMLNode?, at node: YAMLNode) throws(ScenarioError)
        -> StepAction?
    {
        guard let kind = StepKind(name: name) else {
            throw reader.error(
                node,
                "unknown step \"\(name)\"" + NearMiss.alternatives(for: name, among: ScenarioVocabulary.steps)
            )
        }
        return try kind.codec.decode(arguments, node, self)
    }

    /// One of Apple's credential state names.
    func appleCredentialState(_ node: YAMLNode, _ context: String) throws(ScenarioError)
        -> AppleIDCredentialState
    {
        try reader.named(node, context, AppleIDCredentialState.self)
    }

    func app(_ mapping: YAMLMapping?, _ context: String) throws(ScenarioError) -> String? {
        guard let node = mapping?["app"] else { return nil }
        return try appID(node, "\(context).app")
    }

    /// An app of the device, named at `context`.
    func appID(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> String {
        let id = try reader.string(node, context)
        guard let appIDs, !appIDs.contains(id) else { return id }
        throw reader.error(
            node,
            "no app \(id) on the device" + NearMiss.alternatives(for: id, among: appIDs, listing: "apps"))
    }

    /// `error: session_expired`, or several (`[none, session_expired]`), each `none` or an SDK
    /// error code.
    func outcomes(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> [CallOutcome] {
        let items: [YAMLNode]
        if case .sequence(let sequence) = node { items = sequence.items } else { items = [node] }
        var outcomes: [CallOutcome] = []
        for item in items {
            for name in try reader.strings(item, context) {
                guard let outcome = CallOutcome(name: name) else {
                    throw reader.error(
                        item,
                        "\(context) has no \"\(name)\""
                            + NearMiss.alternatives(
                                for: name, among: CallOutcome.names,
                                listing: "expected none or an SDK error code"))
                }
                outcomes.append(outcome)
            }
        }
        guard !outcomes.isEmpty else { throw reader.error(node, "\(context) is empty") }
        return outcomes
    }
}
