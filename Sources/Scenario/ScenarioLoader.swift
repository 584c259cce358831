import Foundation
import JSON
import YAML

/// Reads scenario files (YAML, or JSON, which YAML reads too) into checked `Scenario`s.
///
/// Everything is checked before anything runs: the YAML, every key and value, `${VAR}`
/// references, `runFlow` includes (read and checked with their own `env`, `when` decided).
/// Every problem found is reported, each with its file, line and column: a step, a key or a
/// value that is wrong is recorded and the check goes on with the next.
public enum ScenarioLoader {
    /// Largest scenario or include file read.
    public static let maximumFileSize = 4 << 20
    /// Deepest chain of `runFlow` includes.
    public static let maximumIncludeDepth = 16

    /// Reads and checks the scenario at `path`. `overrides` (`-e KEY=VALUE`) replace the
    /// header's `env` values and add variables; `tenantCheck` reads an embedded issuer's `tenant:`
    /// (see ``TenantCheck``).
    public static func load(
        path: String, overrides: [String: String] = [:], tenantCheck: TenantCheck? = nil
    ) throws(ScenarioError) -> Scenario {
        let bytes = try read(path, from: nil)
        return try parse(bytes, file: path, overrides: overrides, tenantCheck: tenantCheck)
    }

    /// Checks a scenario from bytes; `file` names it in errors and resolves `runFlow` paths.
    /// `substitutes: false` reads `${…}` as text (a scenario written back from a recording has
    /// no variables left, and its values may hold such text).
    public static func parse(
        _ bytes: [UInt8], file: String, overrides: [String: String] = [:], substitutes: Bool = true,
        tenantCheck: TenantCheck? = nil
    ) throws(ScenarioError) -> Scenario {
        let problems = ProblemLog()
        let reader = ScenarioReader(file: file, problems: problems)
        let root = try document(bytes, file: file)
        let header = try reader.mapping(
            root, "the scenario",
            allowed: [
                "name", "description", "tags", "env", "seed", "issuer", "device", "apps", "profile",
                "browser",
                "steps", "timeout",
            ])
        var env: [String: String] = [:]
        if let node = header["env"] {
            env =
                problems.attempt { () throws(ScenarioError) in
                    try variables(node, reader: reader, context: "env")
                } ?? [:]
        }
        for (key, value) in overrides { env[key] = value }
        let withoutEnv = YAMLNode.mapping(
            YAMLMapping(header.pairs.filter { $0.key.scalar?.value != "env" }, mark: header.mark))
        let substituted =
            substitutes
            ? Substitution(env: env, file: file, problems: problems).apply(to: withoutEnv) : withoutEnv
        guard case .mapping(let mapping) = substituted else {
            throw reader.error(root, "the scenario must be a mapping")
        }
        let scenario = problems.attempt { () throws(ScenarioError) in
            try HeaderDecoder(reader: reader, env: env, overrides: overrides, tenantCheck: tenantCheck)
                .scenario(mapping, root: root)
        }
        if let error = problems.combined(mainFile: file) { throw error }
        guard let scenario else { throw reader.error(root, "the scenario could not be read") }
        return scenario
    }

    static func document(_ bytes: [UInt8], file: String) throws(ScenarioError) -> YAMLNode {
        let root: YAMLNode?
        do {
            root = try YAMLParser.parse(bytes, fileName: file)
        } catch {
            let mark = error.mark ?? YAMLMark(line: 1, column: 1)
            throw ScenarioError(
                .syntax, error.message, at: SourceLocation(file: file, line: mark.line, column: mark.column))
        }
        guard let root else {
            throw ScenarioError(
                .invalid, "the file is empty; a scenario needs at least name and steps",
                at: SourceLocation(file: file, line: 1, column: 1))
        }
        return root
    }

    /// Reads a file, relative to `base` (the including file) when not absolute.
    static func read(_ path: String, from base: SourceLocation?) throws(ScenarioError) -> [UInt8] {
        let location = base ?? SourceLocation(file: path, line: 1, column: 1)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw ScenarioError(.unreadable, "\(path) \(reason)", at: location)
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumFileSize + 1)) ?? Data()
        guard data.count <= maximumFileSize else {
            throw ScenarioError(
                .unreadable, "\(path) is larger than \(maximumFileSize >> 20) MiB", at: location)
        }
        return [UInt8](data)
    }

    /// `env:` as names to text.
    static func variables(_ node: YAMLNode, reader: ScenarioReader, context: String) throws(ScenarioError)
        -> [String: String]
    {
        guard case .mapping(let mapping) = node else {
            throw reader.error(
                node, "\(context) must be a mapping of names to values, found \(node.typeDescription)")
        }
        var values: [String: String] = [:]
        for pair in mapping.pairs {
            let name = try reader.string(pair.key, "a name in \(context)")
            guard Substitution.isValidName(name) else {
                throw reader.error(pair.key, "\"\(name)\" is not a variable name (letters, digits and _)")
            }
            guard case .scalar(let scalar) = pair.value else {
                throw reader.error(
                    pair.value, "\(context).\(name) must be a string, found \(pair.value.typeDescription)")
            }
            values[name] = pair.value.isNull ? "" : scalar.value
        }
        return values
    }
}

/// `${NAME}` and `${NAME:-default}` in scalar values.
struct Substitution {
    let env: [String: String]
    let file: String
    /// Where a reference that cannot be substituted is recorded; its text is then left as is.
    let problems: ProblemLog

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    func apply(to node: YAMLNode) -> YAMLNode {
        switch node {
        case .scalar(var scalar):
            guard scalar.value.contains("${") else { return node }
            guard
                let value = problems.attempt({ () throws(ScenarioError) in
                    try substitute(scalar.value, mark: scalar.mark)
                })
            else { return node }
            scalar.value = value
            return .scalar(scalar)
        case .sequence(var sequence):
            sequence.items = sequence.items.map { apply(to: $0) }
            return .sequence(sequence)
        case .mapping(var mapping):
            var pairs: [YAMLPair] = []
            for pair in mapping.pairs {
                pairs.append(YAMLPair(key: pair.key, value: apply(to: pair.value)))
            }
            mapping.pairs = pairs
            return .mapping(mapping)
        }
    }

    func substitute(_ text: String, mark: YAMLMark) throws(ScenarioError) -> String {
        var output = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            output += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw ScenarioError(
                    .invalid, "\"${\" without a closing \"}\"",
                    at: SourceLocation(file: file, line: mark.line, column: mark.column))
            }
            let reference = rest[start.upperBound..<end]
            var name = String(reference)
            var fallback: String?
            if let separator = reference.range(of: ":-") {
                name = String(reference[..<separator.lowerBound])
                fallback = String(reference[separator.upperBound...])
            }
            guard Substitution.isValidName(name) else {
                throw ScenarioError(
                    .invalid, "\"${\(reference)}\" is not a variable reference",
                    at: SourceLocation(file: file, line: mark.line, column: mark.column))
            }
            guard let value = env[name] ?? fallback else {
                let known = env.keys.sorted().joined(separator: ", ")
                throw ScenarioError(
                    .invalid,
                    "undefined variable \(name); define it under env or pass -e \(name)=VALUE"
                        + (known.isEmpty ? "" : " (defined: \(known))"),
                    at: SourceLocation(file: file, line: mark.line, column: mark.column))
            }
            output += value
            rest = rest[rest.index(after: end)...]
        }
        return output + rest
    }
}
