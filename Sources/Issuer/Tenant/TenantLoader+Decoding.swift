import JSON
import WorldVocabulary
import YAML

/// Turns a tenant file's node tree into typed values, refusing anything unexpected at its mark.
///
/// The readers here check one node each (its type, its keys); `TenantLoader+Schema.swift` says
/// which keys exist and how they merge into a tenant.
struct TenantDecoder {
    /// The file, as errors name it.
    let fileName: String
    /// Where relative `jwks_file` paths start.
    let directory: String

    func failure(_ message: String, at mark: YAMLMark) -> TenantError {
        TenantError(fileName: fileName, line: mark.line, column: mark.column, message: message)
    }

    /// A mapping whose keys are all among `allowed`.
    ///
    /// - Parameter what: the mapping as messages name it ("a client", "lifetimes").
    func fields(_ node: YAMLNode, of what: String, allowed: [String]) throws(TenantError) -> TenantFields {
        guard case .mapping(let mapping) = node else {
            throw failure("\(what) must be a mapping, found \(node.typeDescription)", at: node.mark)
        }
        for pair in mapping.pairs {
            guard let key = pair.key.scalar?.value else {
                throw failure(
                    "the keys of \(what) must be names, found \(pair.key.typeDescription)", at: pair.key.mark)
            }
            if !allowed.contains(key) {
                throw failure(
                    "unknown key \"\(key.prefix(64))\" in \(what); allowed keys: \(allowed.joined(separator: ", "))",
                    at: pair.key.mark)
            }
        }
        return TenantFields(mapping: mapping)
    }

    /// A value `fields` requires.
    func required(_ key: String, in fields: TenantFields, of what: String) throws(TenantError) -> YAMLNode {
        guard let node = fields[key] else { throw failure("\(what) needs \(key)", at: fields.mark) }
        return node
    }

    func string(_ node: YAMLNode, _ name: String) throws(TenantError) -> String {
        guard let value = node.string else { throw typeMismatch(node, name, expected: "a string") }
        return value
    }

    func nonEmptyString(_ node: YAMLNode, _ name: String) throws(TenantError) -> String {
        let value = try string(node, name)
        guard !value.isEmpty else { throw failure("\(name) must not be empty", at: node.mark) }
        return value
    }

    /// A string, or `nil` for an explicit null (`~`, `null`, or nothing after the colon).
    func optionalString(_ node: YAMLNode, _ name: String) throws(TenantError) -> String? {
        node.isNull ? nil : try nonEmptyString(node, name)
    }

    func bool(_ node: YAMLNode, _ name: String) throws(TenantError) -> Bool {
        guard let value = node.bool else { throw typeMismatch(node, name, expected: "true or false") }
        return value
    }

    func integer(_ node: YAMLNode, _ name: String) throws(TenantError) -> Int64 {
        switch node.resolved {
        case .int(let value)?: return value
        case .double?:
            throw failure("\(name) must be a whole number, found \(node.typeDescription)", at: node.mark)
        default: throw typeMismatch(node, name, expected: "an integer")
        }
    }

    /// The items of a sequence; null counts as no items.
    func sequence(_ node: YAMLNode, _ name: String) throws(TenantError) -> [YAMLNode] {
        if node.isNull { return [] }
        guard let items = node.sequence else { throw typeMismatch(node, name, expected: "a sequence") }
        return items
    }

    /// A sequence of non-empty strings, each with its node for later messages.
    func strings(_ node: YAMLNode, _ name: String) throws(TenantError) -> [(value: String, node: YAMLNode)] {
        var result: [(value: String, node: YAMLNode)] = []
        for item in try sequence(node, name) {
            result.append((try nonEmptyString(item, "each item of \(name)"), item))
        }
        return result
    }

    /// The node as a JSON value (for JWKs written inline).
    func json(_ node: YAMLNode) throws(TenantError) -> JSONValue {
        try node.json { key in failure("JSON object keys must be strings", at: key.mark) }
    }

    private func typeMismatch(_ node: YAMLNode, _ name: String, expected: String) -> TenantError {
        var message = "\(name) must be \(expected), found \(node.typeDescription)"
        // `version: 1.0` or `secret: 1234` in YAML: the fix is quoting.
        if expected == "a string", let scalar = node.scalar, scalar.style == .plain, scalar.tag == nil,
            !node.isNull
        {
            message += " (write it in quotes to make it a string)"
        }
        return failure(message, at: node.mark)
    }
}

/// A mapping from the file whose keys `TenantDecoder.fields` has checked.
struct TenantFields {
    let mapping: YAMLMapping

    subscript(key: String) -> YAMLNode? { mapping[key] }

    /// Where the mapping starts, for "needs …" messages.
    var mark: YAMLMark { mapping.mark }
}
