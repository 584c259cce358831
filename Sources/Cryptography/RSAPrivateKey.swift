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
            throw CryptoError(.invalidInput, "RSA key size must be a multiple of 8 in 2048...4096, got \(bits)")
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
            throw CryptoError(.invalidKey, "RSA CRT values p, q, dp, dq, qi must be given all together or not at all")
        }

        let bigN = try BigNumber(bigEndian: n)
        let bigE = try BigNumber(bigEndian: e)
        let bigD = try BigNumber(bigEndian: d)
        let factors: RSAFactors
        if let p = components.p, let q = components.q, let dp = components.dp, let dq = components.dq,
            let qi = components.qi
        {
            factors = RSAFactors(
                p: try BigNumber(bigEndian: p), q: try BigNumber(bigEndian: q), dp: try BigNumber(bigEndian: dp),
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
            throw CryptoError(.invalidKey, "RSA private key does not produce signatures that its public key accepts")
        }
    }
}

/// The CRT part of an RSA private key.
struct RSAFactors {
    let p: BigNumber
    let q: BigNumber
    let dp: BigNumber
    let dq: BigNumber
    let qi: BigNumber

    /// Recovers p and q from n, e, d (NIST SP 800-56B Rev. 2 Appendix C.2) and derives dp, dq, qi.
    ///
    /// With k = de − 1 = 2ᵗ·r (r odd), for a base g some g^(2ⁱ·r) is a square root of 1 other than ±1,
    /// and gcd(that − 1, n) is a prime factor. Each base succeeds with probability at least ½.
    static func recover(n: BigNumber, e: BigNumber, d: BigNumber) throws(CryptoError) -> RSAFactors {
        let inconsistent = CryptoError(.invalidKey, "RSA private exponent d does not match (n, e)")
        guard let context = BN_CTX_new() else {
            throw OpenSSLError.error(.invalidKey, "could not allocate a big-number context")
        }
        defer { BN_CTX_free(context) }
        guard let k = BigNumber.make(), let r = BigNumber.make(), let nMinusOne = BigNumber.make(),
            let base = BigNumber.make(), let y = BigNumber.make(), let x = BigNumber.make(),
            let p = BigNumber.make(), let q = BigNumber.make(), let remainder = BigNumber.make()
        else { throw OpenSSLError.error(.invalidKey, "could not allocate big numbers") }
        BN_set_flags(r.pointer, BN_FLG_CONSTTIME)
        guard BN_mul(k.pointer, d.pointer, e.pointer, context) == 1, BN_sub_word(k.pointer, 1) == 1,
            BN_copy(nMinusOne.pointer, n.pointer) != nil, BN_sub_word(nMinusOne.pointer, 1) == 1
        else { throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed") }
        // k is even for any valid key (λ(n) is even); k = 0 means d·e = 1.
        guard BN_is_zero(k.pointer) == 0, BN_is_odd(k.pointer) == 0 else { throw inconsistent }
        var t: Int32 = 0
        while BN_is_bit_set(k.pointer, t) == 0 { t += 1 }
        guard BN_rshift(r.pointer, k.pointer, t) == 1 else {
            throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed")
        }

        var found = false
        search: for g: UInt in 2..<102 {
            guard BN_set_word(base.pointer, g) == 1,
                BN_mod_exp(y.pointer, base.pointer, r.pointer, n.pointer, context) == 1
            else { throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed") }
            if BN_is_one(y.pointer) == 1 || BN_cmp(y.pointer, nMinusOne.pointer) == 0 { continue }
            for _ in 0..<t {
                guard BN_mod_sqr(x.pointer, y.pointer, n.pointer, context) == 1 else {
                    throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed")
                }
                if BN_is_one(x.pointer) == 1 {
                    // y is a non-trivial square root of 1 mod n.
                    guard BN_sub_word(y.pointer, 1) == 1, BN_gcd(p.pointer, y.pointer, n.pointer, context) == 1
                    else { throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed") }
                    found = true
                    break search
                }
                if BN_cmp(x.pointer, nMinusOne.pointer) == 0 { continue search }
                guard BN_copy(y.pointer, x.pointer) != nil else {
                    throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed")
                }
            }
            // x ≠ 1 after t squarings: g^k ≠ 1, so d·e ≢ 1 mod λ(n).
            throw inconsistent
        }
        guard found,
            BN_div(q.pointer, remainder.pointer, n.pointer, p.pointer, context) == 1,
            BN_is_zero(remainder.pointer) == 1, BN_is_one(p.pointer) == 0, BN_is_one(q.pointer) == 0
        else { throw inconsistent }
        // Conventionally p > q, as in keys OpenSSL generates.
        let (larger, smaller) = BN_cmp(p.pointer, q.pointer) > 0 ? (p, q) : (q, p)
        guard let dp = BigNumber.make(), let dq = BigNumber.make(), let pMinusOne = BigNumber.make(),
            let qMinusOne = BigNumber.make(),
            BN_copy(pMinusOne.pointer, larger.pointer) != nil, BN_sub_word(pMinusOne.pointer, 1) == 1,
            BN_copy(qMinusOne.pointer, smaller.pointer) != nil, BN_sub_word(qMinusOne.pointer, 1) == 1,
            BN_nnmod(dp.pointer, d.pointer, pMinusOne.pointer, context) == 1,
            BN_nnmod(dq.pointer, d.pointer, qMinusOne.pointer, context) == 1,
            let inverse = BN_mod_inverse(nil, smaller.pointer, larger.pointer, context)
        else { throw OpenSSLError.error(.invalidKey, "could not derive the RSA CRT values") }
        return RSAFactors(p: larger, q: smaller, dp: dp, dq: dq, qi: BigNumber(adopting: inverse))
    }

    /// n = pq, de ≡ 1 (mod p−1) and (mod q−1), dp = d mod (p−1), dq = d mod (q−1), q·qi ≡ 1 (mod p).
    func checkConsistency(n: BigNumber, e: BigNumber, d: BigNumber) throws(CryptoError) {
        guard let context = BN_CTX_new() else {
            throw OpenSSLError.error(.invalidKey, "could not allocate a big-number context")
        }
        defer { BN_CTX_free(context) }
        guard let product = BigNumber.make(), let pMinusOne = BigNumber.make(), let qMinusOne = BigNumber.make(),
            let scratch = BigNumber.make(),
            BN_copy(pMinusOne.pointer, p.pointer) != nil, BN_sub_word(pMinusOne.pointer, 1) == 1,
            BN_copy(qMinusOne.pointer, q.pointer) != nil, BN_sub_word(qMinusOne.pointer, 1) == 1
        else { throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed") }
        guard BN_cmp(p.pointer, BN_value_one()) > 0, BN_cmp(q.pointer, BN_value_one()) > 0,
            BN_mul(product.pointer, p.pointer, q.pointer, context) == 1, BN_cmp(product.pointer, n.pointer) == 0
        else { throw CryptoError(.invalidKey, "RSA factors p and q do not multiply to n") }

        /// Whether a·b ≡ 1 (mod m).
        func isInverse(_ a: BigNumber, _ b: BigNumber, modulo m: BigNumber) -> Bool {
            BN_mod_mul(scratch.pointer, a.pointer, b.pointer, m.pointer, context) == 1 && BN_is_one(scratch.pointer) == 1
        }
        /// Whether a mod m = b.
        func isResidue(_ a: BigNumber, modulo m: BigNumber, _ b: BigNumber) -> Bool {
            BN_nnmod(scratch.pointer, a.pointer, m.pointer, context) == 1 && BN_cmp(scratch.pointer, b.pointer) == 0
        }
        guard isInverse(d, e, modulo: pMinusOne), isInverse(d, e, modulo: qMinusOne) else {
            throw CryptoError(.invalidKey, "RSA private exponent d does not match (n, e)")
        }
        guard isResidue(d, modulo: pMinusOne, dp), isResidue(d, modulo: qMinusOne, dq) else {
            throw CryptoError(.invalidKey, "RSA CRT exponents dp, dq do not match d")
        }
        guard isInverse(q, qi, modulo: p), BN_cmp(qi.pointer, p.pointer) < 0 else {
            throw CryptoError(.invalidKey, "RSA CRT coefficient qi is not the inverse of q modulo p")
        }
        ERR_clear_error()
    }
}
