public import JSON

/// The JOSE header of a JWS (RFC 7515 §4).
public struct JWSHeader: Sendable, Hashable {
    /// Every member, as sent.
    public var members: [String: JSONValue]

    public init(members: [String: JSONValue]) { self.members = members }

    public init(algorithm: JWSAlgorithm, keyID: String? = nil, type: String? = nil) {
        members = ["alg": .string(algorithm.rawValue)]
        if let keyID { members["kid"] = .string(keyID) }
        if let type { members["typ"] = .string(type) }
    }

    /// `alg` as written (which may name an algorithm SignInSim refuses).
    public var algorithmName: String? { members["alg"]?.stringValue }
    /// `kid` (RFC 7515 §4.1.4).
    public var keyID: String? { members["kid"]?.stringValue }
    /// `typ` (RFC 7515 §4.1.9), e.g. `JWT`, `dpop+jwt`, `at+jwt`.
    public var type: String? { members["typ"]?.stringValue }
    /// `jwk` (RFC 7515 §4.1.3): the public key embedded by DPoP proofs.
    public var jsonWebKey: JSONValue? { members["jwk"] }

    /// Header parameters this implementation understands and therefore may be listed in `crit`.
    /// None are: SignInSim implements no JWS extension, so any `crit` is refused.
    public static let understoodCriticalParameters: Set<String> = []

    /// Header parameters defined by RFC 7515 and RFC 7518, which `crit` must not list (RFC 7515 §4.1.11).
    static let registeredParameters: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
    ]

    /// Checks `alg` and `crit` (RFC 7515 §4.1.1, §4.1.11) and returns the algorithm.
    public func validated() throws(JOSEError) -> JWSAlgorithm {
        guard let algValue = members["alg"] else {
            throw JOSEError(.malformedHeader, "the JOSE header has no alg")
        }
        guard let name = algValue.stringValue else {
            throw JOSEError(.malformedHeader, "alg must be a string")
        }
        let algorithm = try JWSAlgorithm.resolve(name)
        if let kid = members["kid"], kid.stringValue == nil {
            throw JOSEError(.malformedHeader, "kid must be a string")
        }
        if let crit = members["crit"] {
            guard let list = crit.arrayValue, !list.isEmpty else {
                throw JOSEError(.malformedHeader, "crit must be a non-empty array of strings")
            }
            for entry in list {
                guard let name = entry.stringValue else {
                    throw JOSEError(.malformedHeader, "crit must be a non-empty array of strings")
                }
                if JWSHeader.registeredParameters.contains(name) {
                    throw JOSEError(.malformedHeader, "crit lists \"\(name)\", a parameter RFC 7515 defines")
                }
                guard members[name] != nil else {
                    throw JOSEError(
                        .malformedHeader, "crit lists \"\(name.prefix(32))\" but the header lacks it")
                }
                guard JWSHeader.understoodCriticalParameters.contains(name) else {
                    throw JOSEError(
                        .unsupportedCriticalHeader,
                        "critical header parameter \"\(name.prefix(32))\" is not understood")
                }
            }
        }
        return algorithm
    }
}
