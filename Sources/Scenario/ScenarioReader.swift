import Clocks
import Errors
import JSON
import OAuthCore
import SignInSDK
import YAML

/// Typed reads of a scenario's YAML nodes that fail with the node's position and what was
/// expected there. Problems that need not stop the read (an unknown key) go to `problems`.
struct ScenarioReader {
    let file: String
    /// Where the problems of this file and the flows it includes are gathered.
    let problems: ProblemLog

    init(file: String, problems: ProblemLog = ProblemLog()) {
        self.file = file
        self.problems = problems
    }

    func location(_ node: YAMLNode) -> SourceLocation {
        SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
    }

    func error(_ node: YAMLNode, _ message: String) -> ScenarioError {
        ScenarioError(.invalid, message, at: location(node))
    }

    /// A mapping; a key not in `allowed` is a problem recorded, and the rest is read.
    func mapping(_ node: YAMLNode, _ context: String, allowed: [String]) throws(ScenarioError) -> YAMLMapping
    {
        guard case .mapping(let mapping) = node else {
            throw error(node, "\(context) must be a mapping, found \(node.typeDescription)")
        }
        for pair in mapping.pairs {
            guard let key = pair.key.scalar?.value else {
                problems.record(error(pair.key, "\(context) has a key that is not a string"))
                continue
            }
            guard allowed.contains(key) else {
                problems.record(
                    error(
                        pair.key,
                        "unknown key \"\(key)\" in \(context)"
                            + NearMiss.alternatives(for: key, among: allowed)))
                continue
            }
        }
        return mapping
    }

    /// One name of a closed set (`AppPhase`, `IssuerFault`, …), by its raw value.
    func named<Name: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ context: String, _: Name.Type)
        throws(ScenarioError) -> Name where Name.RawValue == String
    {
        let text = try string(node, context)
        if let name = Name(rawValue: text) { return name }
        let names = Name.allCases.map(\.rawValue)
        throw error(
            node,
            "\(context) has no \"\(text)\"" + NearMiss.alternatives(for: text, among: names))
    }

    /// Names of a closed set, written as a sequence or as one space-separated string; a wrong
    /// one is reported at its item.
    func names<Name: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ context: String, _: Name.Type)
        throws(ScenarioError) -> [Name] where Name.RawValue == String
    {
        if case .sequence(let sequence) = node {
            var values: [Name] = []
            for item in sequence.items { values.append(try named(item, context, Name.self)) }
            return values
        }
        let known = Name.allCases.map(\.rawValue)
        var values: [Name] = []
        for word in try strings(node, context) {
            guard let name = Name(rawValue: word) else {
                throw error(
                    node, "\(context) has no \"\(word)\"" + NearMiss.alternatives(for: word, among: known))
            }
            values.append(name)
        }
        return values
    }

    /// A `prompt` as written, checked: values of OpenID Connect Core §3.1.2.1 separated by
    /// spaces (`PromptValue`), `omit` alone (send none), or nothing (the SDK's automatic rule).
    /// The text is kept as written, for `SignInOptions.Prompt(text:)`.
    func prompt(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> String {
        let text = try string(node, context)
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let omit = SignInOptions.Prompt.omitKeyword
        for word in words where PromptValue(rawValue: word) == nil {
            guard word == omit else {
                throw error(
                    node,
                    "\(context) has no \"\(word)\""
                        + NearMiss.alternatives(for: word, among: Self.promptNames))
            }
            guard words.count == 1 else {
                throw error(node, "\(context): \(omit) sends no prompt and stands alone")
            }
        }
        return text
    }

    /// What a `prompt` may name: Core's values, and `omit`.
    static var promptNames: [String] {
        PromptValue.allCases.map(\.rawValue) + [SignInOptions.Prompt.omitKeyword]
    }

    func string(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> String {
        guard case .scalar(let scalar) = node, !node.isNull else {
            throw error(node, "\(context) must be a string, found \(node.typeDescription)")
        }
        // Numbers and booleans are fine where text is expected (a password "1234").
        return scalar.value
    }

    func optionalString(_ mapping: YAMLMapping, _ key: String, _ context: String) throws(ScenarioError)
        -> String?
    {
        guard let node = mapping[key], !node.isNull else { return nil }
        return try string(node, "\(context).\(key)")
    }

    /// An integer; a quoted one too, since `"${COUNT}"` substitutes into a string.
    func int(_ node: YAMLNode, _ context: String, range: ClosedRange<Int>? = nil) throws(ScenarioError) -> Int
    {
        guard let value = node.int ?? node.string.flatMap({ Int($0) }) else {
            throw error(node, "\(context) must be an integer, found \(node.typeDescription)")
        }
        if let range, !range.contains(value) {
            throw error(
                node, "\(context) must be from \(range.lowerBound) to \(range.upperBound), found \(value)")
        }
        return value
    }

    func bool(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> Bool {
        guard let value = node.bool ?? node.string.flatMap({ ["true": true, "false": false][$0] }) else {
            throw error(node, "\(context) must be true or false, found \(node.typeDescription)")
        }
        return value
    }

    /// A list of strings, written as a sequence or as one space-separated string.
    func strings(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> [String] {
        if case .sequence(let sequence) = node {
            var values: [String] = []
            for item in sequence.items { values.append(try string(item, "an item of \(context)")) }
            return values
        }
        return try string(node, context).split(separator: " ").map(String.init)
    }

    /// Seconds, as an integer or with a unit: `90`, `90s`, `15m`, `2h`, `1d` (negative allowed).
    func seconds(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> Int64 {
        if let value = node.int { return try bounded(Int64(value), node, context) }
        guard let text = node.string, let unit = text.last, let amount = Int64(text.dropLast()) else {
            throw error(
                node, "\(context) must be seconds: an integer or a number with s, m, h or d (\"15m\")")
        }
        let factor: Int64
        switch unit {
        case "s": factor = 1
        case "m": factor = 60
        case "h": factor = 3600
        case "d": factor = 86400
        default:
            throw error(node, "\(context) has an unknown unit \"\(unit)\"; use s, m, h or d")
        }
        let (seconds, overflow) = amount.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw error(node, "\(context) is too large") }
        return try bounded(seconds, node, context)
    }

    /// `seconds` when no longer than `WallClockRange.longestMove` either way (the span of years
    /// 0001 to 9999): a clock moved, skewed or given a leeway by that much still shows a time
    /// far inside `Int64`.
    private func bounded(_ seconds: Int64, _ node: YAMLNode, _ context: String) throws(ScenarioError) -> Int64
    {
        let longest = WallClockRange.longestMove
        guard (-longest...longest).contains(seconds) else {
            throw error(
                node,
                "\(context) must be at most \(longest) s either way (years 0001 to 9999), found \(seconds)")
        }
        return seconds
    }

    /// The node as a JSON value (for claims, user fields and tenant documents).
    func json(_ node: YAMLNode) throws(ScenarioError) -> JSONValue {
        try node.json { key in error(key, "keys must be strings") }
    }

    /// `present`, `absent`, or a value to equal.
    func match(_ node: YAMLNode) throws(ScenarioError) -> ClaimMatch {
        if let text = node.string {
            if text == "present" { return .present }
            if text == "absent" { return .absent }
        }
        return .equals(try json(node))
    }

    func matches(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> [String: ClaimMatch] {
        guard case .mapping(let mapping) = node else {
            throw error(
                node, "\(context) must be a mapping of names to values, found \(node.typeDescription)")
        }
        var result: [String: ClaimMatch] = [:]
        for pair in mapping.pairs {
            result[try string(pair.key, "a key of \(context)")] = try match(pair.value)
        }
        return result
    }
}
