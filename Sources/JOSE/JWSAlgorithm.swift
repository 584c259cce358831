/// The JWS algorithms SignInSim signs and verifies (RFC 7518 §3.1).
///
/// Deliberately asymmetric only: `none` is never accepted (RFC 8725 §3.2), and HMAC algorithms
/// are refused because a verifier holding only a public key would otherwise be tricked into
/// using that public key as the shared secret (RFC 8725 §2.1, "algorithm confusion").
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ECDSA using P-256 and SHA-256 (RFC 7518 §3.4).
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 using SHA-256 (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// RSASSA-PSS using SHA-256 and MGF1 with SHA-256 (RFC 7518 §3.5).
    case ps256 = "PS256"

    public var description: String { rawValue }

    /// The JWK `kty` a key for this algorithm must have.
    public var keyType: JWK.KeyType {
        switch self {
        case .es256: .ec
        case .rs256, .ps256: .rsa
        }
    }

    /// Resolves a header `alg` value, naming precisely why an algorithm is refused.
    public static func resolve(_ name: String) throws(JOSEError) -> JWSAlgorithm {
        if let algorithm = JWSAlgorithm(rawValue: name) { return algorithm }
        if name.caseInsensitiveCompare("none") {
            throw JOSEError(.unsecuredToken, "alg \"\(name)\" (an unsecured JWS) is never accepted")
        }
        if name.hasPrefix("HS") {
            throw JOSEError(
                .algorithmNotAllowed,
                "alg \(name) is a shared-secret MAC; verifying it with an asymmetric key would be algorithm confusion"
            )
        }
        throw JOSEError(
            .unsupportedAlgorithm, "alg \"\(name.prefix(32))\" is not supported (ES256, RS256, PS256 are)")
    }
}

extension String {
    func caseInsensitiveCompare(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
