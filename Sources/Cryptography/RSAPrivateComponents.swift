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
