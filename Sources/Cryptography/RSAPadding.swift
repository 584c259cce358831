/// RSA signature padding, both with SHA-256.
public enum RSAPadding: Sendable, Hashable {
    /// RSASSA-PKCS1-v1_5 (RFC 8017 §8.2): JWS `RS256` (RFC 7518 §3.3). Deterministic.
    case pkcs1v15
    /// RSASSA-PSS (RFC 8017 §8.1) with MGF1-SHA-256 and a 32-byte salt: JWS `PS256` (RFC 7518 §3.5).
    ///
    /// Verification requires the salt to be exactly 32 bytes, as RFC 7518 §3.5 prescribes; signatures made
    /// with another salt length (OpenSSL's "max" or "auto") are rejected.
    case pss
}
