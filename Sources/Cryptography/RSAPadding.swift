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

/// The integers of an RSA private key (RFC 8017 §3.2, JWK RFC 7518 §6.3.2), big-endian unsigned.
///
/// Leading zero bytes are allowed on input; values read back have none. The CRT values `p`, `q`, `dp`,
/// `dq`, `qi` are all present or all nil.
public struct RSAPrivateComponents: Sendable, Hashable {
    public var n: [UInt8]
    public var e: [UInt8]
    public var d: [UInt8]
    public var p: [UInt8]?
    public var q: [UInt8]?
    public var dp: [UInt8]?
    public var dq: [UInt8]?
    public var qi: [UInt8]?

    public init(
        n: [UInt8], e: [UInt8], d: [UInt8], p: [UInt8]? = nil, q: [UInt8]? = nil, dp: [UInt8]? = nil,
        dq: [UInt8]? = nil, qi: [UInt8]? = nil
    ) {
        self.n = n
        self.e = e
        self.d = d
        self.p = p
        self.q = q
        self.dp = dp
        self.dq = dq
        self.qi = qi
    }
}
