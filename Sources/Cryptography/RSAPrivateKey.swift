import COpenSSL

/// An RSA private key for RS256 and PS256 signatures (RFC 7518 §3.3, §3.5).
public final class RSAPrivateKey: @unchecked Sendable {
    // Safe to share: every stored property is immutable after init; the EVP_PKEY is never modified and
    // OpenSSL 3 allows concurrent signing with one key (blinding state is locked inside libcrypto); the
    // context pools are themselves thread-safe.

    /// Sizes accepted for generation.
    static let generatedBitRange = 2048...4096

    /// `EVP_PKEY` holding n, e, d and the CRT values; owned.
    private let pkey: OpaquePointer
    public let publicKey: RSAPublicKey
    private let pkcs1Signers: PKeyContextPool
    private let pssSigners: PKeyContextPool

    /// A new key with public exponent 65537 from OpenSSL's CSPRNG; slow (about 150 ms for 2048 bits).
    ///
    /// `bits` must be a multiple of 8 in 2048...4096.
    public convenience init(bits: Int = 2048) throws(CryptoError) {
        guard Self.generatedBitRange.contains(bits), bits % 8 == 0 else {
            throw CryptoError(
                .invalidInput, "RSA key size must be a multiple of 8 in 2048...4096, got \(bits)")
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw OpenSSLError.error(.keyGenerationFailed, "could not create an RSA key generation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
            EVP_PKEY_generate(context, &generated) == 1, let pkey = generated
        else { throw OpenSSLError.error(.keyGenerationFailed, "RSA-\(bits) key generation failed") }
        guard let n = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_RSA_N),
            let e = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_RSA_E),
            let publicPKey = try? RSAPublicKey.makePKey(n: n, e: e)
        else {
            EVP_PKEY_free(pkey)
            throw OpenSSLError.error(.keyGenerationFailed, "could not read the generated RSA public key")
        }
        self.init(adopting: pkey, publicKey: RSAPublicKey(adopting: publicPKey, n: n, e: e, bits: bits))
    }

    /// A key from its integers (JWK `n`, `e`, `d` and optionally `p`, `q`, `dp`, `dq`, `qi`).
    ///
    /// Without the CRT values they are recovered from n, e and d (NIST SP 800-56B Rev. 2 Appendix C), so
    /// signing stays fast and PKCS #8 export works. The numbers are checked to fit together (n = pq,
    /// de ≡ 1 mod p−1 and q−1, the CRT values) and one signature is made and verified, under a millisecond
    /// in all. The primes are not tested for primality (tens of milliseconds): a wrong factor cannot pass
    /// the other checks and the self-test.
    public convenience init(components: RSAPrivateComponents) throws(CryptoError) {
        let (n, e, bits) = try RSAPublicKey.checkPublic(n: components.n, e: components.e)
        let d = components.d.withoutLeadingZeros
        guard !d.isEmpty, d.count < n.count || (d.count == n.count && d.lexicographicallyPrecedes(n)) else {
            throw CryptoError(.invalidKey, "RSA private exponent d must be in [1, n-1]")
        }
        let crt = [components.p, components.q, components.dp, components.dq, components.qi]
        let present = crt.compactMap { $0 }.count
        guard present == 0 || present == crt.count else {
            throw CryptoError(
                .invalidKey, "RSA CRT values p, q, dp, dq, qi must be given all together or not at all")
        }

        let bigN = try BigNumber(bigEndian: n)
        let bigE = try BigNumber(bigEndian: e)
        let bigD = try BigNumber(bigEndian: d)
        let factors: RSAFactors
        if let p = components.p, let q = components.q, let dp = components.dp, let dq = components.dq,
            let qi = components.qi
        {
            factors = RSAFactors(
                p: try BigNumber(bigEndian: p), q: try BigNumber(bigEndian: q),
                dp: try BigNumber(bigEndian: dp),
                dq: try BigNumber(bigEndian: dq), qi: try BigNumber(bigEndian: qi))
        } else {
            factors = try RSAFactors.recover(n: bigN, e: bigE, d: bigD)
        }
        try factors.checkConsistency(n: bigN, e: bigE, d: bigD)
        guard
            let pkey = sis_rsa_fromdata(
                bigN.pointer, bigE.pointer, bigD.pointer, factors.p.pointer, factors.q.pointer,
                factors.dp.pointer, factors.dq.pointer, factors.qi.pointer)
        else { throw OpenSSLError.error(.invalidKey, "OpenSSL rejected the RSA private key") }
        guard let publicPKey = try? RSAPublicKey.makePKey(n: n, e: e) else {
            EVP_PKEY_free(pkey)
            throw OpenSSLError.error(.invalidKey, "OpenSSL rejected the RSA public key")
        }
        self.init(adopting: pkey, publicKey: RSAPublicKey(adopting: publicPKey, n: n, e: e, bits: bits))
        try selfTest()
    }

    /// A key from PEM: PKCS #8 ("PRIVATE KEY") or PKCS #1 ("RSA PRIVATE KEY").
    public convenience init(pem: String) throws(CryptoError) {
        switch try KeyCoding.decodePrivateKey(pem: pem) {
        case .rsa(let components):
            try self.init(components: components)
        case .p256:
            throw CryptoError(.invalidKey, "PEM holds a P-256 private key; expected RSA")
        }
    }

    private init(adopting pkey: OpaquePointer, publicKey: RSAPublicKey) {
        self.pkey = pkey
        self.publicKey = publicKey
        pkcs1Signers = PKeyContextPool(pkey: pkey, operation: .sign, scheme: .rsa(.pkcs1v15))
        pssSigners = PKeyContextPool(pkey: pkey, operation: .sign, scheme: .rsa(.pss))
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The key's integers, big-endian without leading zeros, CRT values included.
    public var components: RSAPrivateComponents {
        do {
            return try KeyCoding.rsaPrivateComponents(of: pkey)
        } catch {
            fatalError("RSA key lost its components: \(error)")
        }
    }

    /// PEM PKCS #8 ("-----BEGIN PRIVATE KEY-----").
    public func pemRepresentation() -> String {
        KeyCoding.pkcs8PEM(pkey)
    }

    /// The SHA-256 RSA signature of `message` with `padding`; as long as the modulus.
    public func signature(for message: [UInt8], padding: RSAPadding) throws(CryptoError) -> [UInt8] {
        let signers =
            switch padding {
            case .pkcs1v15: pkcs1Signers
            case .pss: pssSigners
            }
        let size = (publicKey.modulusBits + 7) / 8
        let signature = SHA256.withDigest(of: message) { digest in
            [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                initialized = signers.sign(digest: digest, into: UnsafeMutableRawBufferPointer(buffer)) ?? 0
            }
        }
        guard signature.count == size else {
            throw OpenSSLError.error(.signingFailed, "RSA signing failed")
        }
        return signature
    }

    /// Signs and verifies a fixed message: proves that d and the CRT values belong to (n, e) end to end.
    private func selfTest() throws(CryptoError) {
        let probe = Array("SignInSim RSA key self-test".utf8)
        let signature = try signature(for: probe, padding: .pkcs1v15)
        guard publicKey.isValidSignature(signature, for: probe, padding: .pkcs1v15) else {
            throw CryptoError(
                .invalidKey, "RSA private key does not produce signatures that its public key accepts")
        }
    }
}
