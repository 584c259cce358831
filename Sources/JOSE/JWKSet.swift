public import JSON

/// A JWK Set (RFC 7517 §5), as served at an issuer's `jwks_uri`.
public struct JWKSet: Sendable, Hashable {
    public var keys: [JWK]
    /// How many members of `keys` were skipped as unusable when this set was read.
    public private(set) var ignoredKeyCount: Int = 0

    /// Largest JWK Set text accepted by `parse`.
    public static let maximumSize = 1 << 20

    public init(keys: [JWK]) { self.keys = keys }

    /// Parses JWK Set text. Keys of a type SignInSim does not use, or with missing members, are
    /// skipped and counted, as RFC 7517 §5 says implementations should ignore them.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JOSEError) -> JWKSet {
        guard bytes.count <= maximumSize else {
            throw JOSEError(.tooLarge, "JWK Set text is \(bytes.count) bytes; the limit is \(maximumSize)")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw JOSEError(.malformedJSON, "JWK Set is not JSON: \(error.message)")
        }
        return try JWKSet(json: value)
    }

    public static func parse(_ text: String) throws(JOSEError) -> JWKSet { try parse(Array(text.utf8)) }

    public init(json: JSONValue) throws(JOSEError) {
        guard let members = json.objectValue else {
            throw JOSEError(.malformedKey, "a JWK Set must be a JSON object")
        }
        guard let keysValue = members["keys"] else {
            throw JOSEError(.malformedKey, "the JWK Set has no keys member")
        }
        guard let array = keysValue.arrayValue else {
            throw JOSEError(.malformedKey, "keys must be an array")
        }
        var keys: [JWK] = []
        var ignored = 0
        for element in array {
            if let key = try? JWK(json: element) { keys.append(key) } else { ignored += 1 }
        }
        self.keys = keys
        self.ignoredKeyCount = ignored
    }

    public var json: JSONValue { .object(["keys": .array(keys.map(\.json))]) }

    /// Why `json`, a JWK Set or a single JWK, is not a set of public keys, or `nil` when no key
    /// in it holds a private or secret member (`JWK.privateMemberNames`).
    ///
    /// A set that verifies signatures, or is published at a `jwks_uri`, holds public keys only
    /// (RFC 7517 §5, RFC 7518 §6): a private key in it is a leaked secret, and a symmetric
    /// (`oct`) key would let whoever has the set forge tokens. Every member of `keys` is looked
    /// at, including ones that `init(json:)` would skip as unusable.
    public static func privateKeyProblem(in json: JSONValue) -> String? {
        let candidates = json["keys"]?.arrayValue ?? [json]
        for (index, candidate) in candidates.enumerated() {
            let found = JWK.privateMembers(in: candidate)
            guard !found.isEmpty else { continue }
            let name = candidate["kid"]?.stringValue.map { " (kid \"\($0.prefix(64))\")" } ?? ""
            let which = json["keys"] == nil ? "the JWK\(name)" : "key \(index + 1)\(name)"
            let type = candidate["kty"]?.stringValue == "oct" ? "a secret (symmetric) key" : "a private key"
            return "\(which) is \(type): it has \(found.joined(separator: ", ")); "
                + "a verification key set holds public keys only (RFC 7517 §5, RFC 7518 §6)"
        }
        return nil
    }

    /// The set with every private member removed, fit to publish.
    public var publicKeys: JWKSet { JWKSet(keys: keys.map(\.publicKey)) }
}
