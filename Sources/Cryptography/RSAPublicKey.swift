import COpenSSL

/// An RSA public key for verifying RS256 and PS256 signatures (RFC 7518 §3.3, §3.5).
public final class RSAPublicKey: @unchecked Sendable {
    // Safe to share: every stored property is immutable after init; the EVP_PKEY is never modified and
    // OpenSSL 3 allows concurrent verification with one key; the context pools are themselves thread-safe.

    /// Accepted modulus sizes: RFC 7518 §3.3 requires at least 2048 bits; 8192 bounds the cost of a verify.
    static let modulusBitRange = 2048...8192

    /// `EVP_PKEY` holding only n and e; owned.
    let pkey: OpaquePointer
    /// Modulus, big-endian, no leading zero byte.
    public let n: [UInt8]
    /// Public exponent, big-endian, no leading zero byte.
    public let e: [UInt8]
    /// Size of the modulus in bits.
    public let modulusBits: Int
    private let pkcs1Verifiers: PKeyContextPool
    private let pssVerifiers: PKeyContextPool

    /// A public key from modulus and exponent (JWK `n`, `e`); the modulus must have 2048 to 8192 bits.
    public convenience init(n: [UInt8], e: [UInt8]) throws(CryptoError) {
        let (n, e, bits) = try Self.checkPublic(n: n, e: e)
        guard let pkey = try Self.makePKey(n: n, e: e) else {
            throw OpenSSLError.error(.invalidKey, "OpenSSL rejected the RSA public key")
        }
        self.init(adopting: pkey, n: n, e: e, bits: bits)
    }

    /// A public key from PEM: `SubjectPublicKeyInfo` ("PUBLIC KEY") or PKCS #1 ("RSA PUBLIC KEY").
    public convenience init(pem: String) throws(CryptoError) {
        switch try KeyCoding.decodePublicKey(pem: pem) {
        case .rsa(let n, let e):
            try self.init(n: n, e: e)
        case .p256:
            throw CryptoError(.invalidKey, "PEM holds a P-256 public key; expected RSA")
        }
    }

    /// Takes ownership of `pkey`, whose already validated numbers are given.
    init(adopting pkey: OpaquePointer, n: [UInt8], e: [UInt8], bits: Int) {
        self.pkey = pkey
        self.n = n
        self.e = e
        modulusBits = bits
        pkcs1Verifiers = PKeyContextPool(pkey: pkey, operation: .verify, scheme: .rsa(.pkcs1v15))
        pssVerifiers = PKeyContextPool(pkey: pkey, operation: .verify, scheme: .rsa(.pss))
    }

    deinit { EVP_PKEY_free(pkey) }

    /// PEM `SubjectPublicKeyInfo` ("-----BEGIN PUBLIC KEY-----").
    public func pemRepresentation() -> String {
        KeyCoding.spkiPEM(pkey)
    }

    /// Whether `signature` is a valid SHA-256 signature of `message` with `padding`.
    ///
    /// The signature must be exactly as long as the modulus (RFC 8017 §8.2.2 step 1). Never throws or traps.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8], padding: RSAPadding) -> Bool {
        guard signature.count == (modulusBits + 7) / 8 else { return false }
        let verifiers =
            switch padding {
            case .pkcs1v15: pkcs1Verifiers
            case .pss: pssVerifiers
            }
        return SHA256.withDigest(of: message) { digest in
            signature.withUnsafeBytes { verifiers.verify(signature: $0, digest: digest) }
        }
    }

    /// Normalised n and e and the modulus size, or the reason they are unacceptable.
    static func checkPublic(n: [UInt8], e: [UInt8]) throws(CryptoError) -> (n: [UInt8], e: [UInt8], bits: Int)
    {
        let n = n.withoutLeadingZeros
        let e = e.withoutLeadingZeros
        let bits = n.isEmpty ? 0 : n.count * 8 - n[0].leadingZeroBitCount
        guard modulusBitRange.contains(bits) else {
            throw CryptoError(
                .invalidKey,
                "RSA modulus has \(bits) bits; accepted are \(modulusBitRange.lowerBound)"
                    + "...\(modulusBitRange.upperBound) (RFC 7518 §3.3)")
        }
        guard n[n.count - 1] & 1 == 1 else {
            throw CryptoError(.invalidKey, "RSA modulus is even")
        }
        // OpenSSL refuses exponents over 64 bits for large moduli; 65537 is what everyone uses.
        guard !e.isEmpty, e.count <= 8, e[e.count - 1] & 1 == 1, e != [1] else {
            throw CryptoError(.invalidKey, "RSA public exponent must be odd, at least 3 and at most 64 bits")
        }
        return (n, e, bits)
    }

    static func makePKey(n: [UInt8], e: [UInt8]) throws(CryptoError) -> OpaquePointer? {
        let bigN = try BigNumber(bigEndian: n)
        let bigE = try BigNumber(bigEndian: e)
        return sis_rsa_fromdata(bigN.pointer, bigE.pointer, nil, nil, nil, nil, nil, nil)
    }
}
