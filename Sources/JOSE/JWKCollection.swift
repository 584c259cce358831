public import Cryptography

/// Verification keys looked up by `kid` (RFC 7515 §4.1.4), with their JWK metadata.
///
/// Keys are decoded once when the collection is built, so that verifying many tokens does not
/// re-import the same key each time.
public struct JWKCollection: Sendable {
    public struct Entry: Sendable {
        public let jwk: JWK
        public let key: PublicKey
    }

    public let entries: [Entry]
    /// Keys of the set that could not be used (bad curve, short modulus…), with the reason.
    public let rejectedKeys: [(keyID: String?, reason: String)]

    public init(_ set: JWKSet) {
        var entries: [Entry] = []
        var rejected: [(String?, String)] = []
        for jwk in set.keys {
            do {
                entries.append(Entry(jwk: jwk, key: try jwk.verificationKey()))
            } catch {
                rejected.append((jwk.keyID, error.message))
            }
        }
        self.entries = entries
        self.rejectedKeys = rejected
    }

    public init(keys: [JWK]) { self.init(JWKSet(keys: keys)) }

    public var isEmpty: Bool { entries.isEmpty }

    /// The key to verify a JWS with the given header.
    ///
    /// With a `kid`, the key of that id. Without one, the single key that could verify the
    /// algorithm; with several candidates the token is refused rather than tried against each
    /// (OpenID RP test `rp-id_token-kid-absent-multiple-jwks` allows either; refusing is the
    /// stricter choice and never hides which key signed).
    public func key(for header: JWSHeader, algorithm: JWSAlgorithm) throws(JOSEError) -> Entry {
        if let keyID = header.keyID {
            let matches = entries.filter { $0.jwk.keyID == keyID }
            guard !matches.isEmpty else {
                throw JOSEError(.unknownKey, "no key with kid \"\(keyID.prefix(64))\" in the JWK Set")
            }
            if matches.count == 1 { return matches[0] }
            let usable = matches.filter { $0.jwk.keyType == algorithm.keyType }
            guard usable.count == 1 else {
                throw JOSEError(.ambiguousKey, "\(matches.count) keys share kid \"\(keyID.prefix(64))\"")
            }
            return usable[0]
        }
        let candidates = entries.filter { $0.jwk.keyType == algorithm.keyType && $0.jwk.use != "enc" }
        switch candidates.count {
        case 1: return candidates[0]
        case 0:
            throw JOSEError(
                .unknownKey, "the token has no kid and no \(algorithm.keyType.rawValue) key is in the JWK Set"
            )
        default:
            throw JOSEError(
                .ambiguousKey,
                "the token has no kid and the JWK Set holds \(candidates.count) keys that could verify it")
        }
    }
}
