import Cryptography

/// An ID token claim that binds another value of the response to the token by its hash:
/// `at_hash` for the access token, `c_hash` for the authorization code (OpenID Connect Core
/// §3.1.3.6, §3.3.2.11).
public enum HashClaim: String, Sendable, Hashable, CaseIterable {
    /// The access token's hash: OPTIONAL in an ID token from the token endpoint of the code
    /// flow (Core §3.1.3.6), and checked when present (§3.1.3.8).
    case accessToken = "at_hash"
    /// The authorization code's hash: REQUIRED when the authorization endpoint returns an ID
    /// token with a code (the hybrid flow, Core §3.3.2.11), checked as §3.3.2.10 says.
    case code = "c_hash"

    /// The claim's value for `value` under the ID token's `alg` (Core §3.3.2.11): base64url,
    /// without padding, of the left-most half of the hash of the value's ASCII octets.
    ///
    /// The hash is the one the `alg` names by its size (RFC 7518 §3.1): SHA-256 for ES256,
    /// RS256, PS256 and HS256, SHA-384 for the `…384` algorithms, SHA-512 for the `…512`
    /// ones. Any other `alg` (`none`, `EdDSA`, whose hash its name does not fix) is refused.
    public static func leftHalfHash(of value: String, algorithm: String) throws(JOSEError) -> String {
        guard let hash = hashFunction(forAlgorithm: algorithm) else {
            throw JOSEError(
                .unsupportedAlgorithm, "alg \"\(algorithm.prefix(32))\" names no hash for at_hash or c_hash")
        }
        return Base64URL.encode(hash.hash(value).prefix(hash.digestSize / 2))
    }

    private static func hashFunction(forAlgorithm name: String) -> SHA2? {
        guard ["ES", "RS", "PS", "HS"].contains(name.prefix(2)) else { return nil }
        switch name.dropFirst(2) {
        case "256": return .sha256
        case "384": return .sha384
        case "512": return .sha512
        default: return nil
        }
    }
}
