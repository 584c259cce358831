import COpenSSL

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
                    guard BN_sub_word(y.pointer, 1) == 1,
                        BN_gcd(p.pointer, y.pointer, n.pointer, context) == 1
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
        guard let product = BigNumber.make(), let pMinusOne = BigNumber.make(),
            let qMinusOne = BigNumber.make(),
            let scratch = BigNumber.make(),
            BN_copy(pMinusOne.pointer, p.pointer) != nil, BN_sub_word(pMinusOne.pointer, 1) == 1,
            BN_copy(qMinusOne.pointer, q.pointer) != nil, BN_sub_word(qMinusOne.pointer, 1) == 1
        else { throw OpenSSLError.error(.invalidKey, "big-number arithmetic failed") }
        guard BN_cmp(p.pointer, BN_value_one()) > 0, BN_cmp(q.pointer, BN_value_one()) > 0,
            BN_mul(product.pointer, p.pointer, q.pointer, context) == 1,
            BN_cmp(product.pointer, n.pointer) == 0
        else { throw CryptoError(.invalidKey, "RSA factors p and q do not multiply to n") }

        /// Whether a·b ≡ 1 (mod m).
        func isInverse(_ a: BigNumber, _ b: BigNumber, modulo m: BigNumber) -> Bool {
            BN_mod_mul(scratch.pointer, a.pointer, b.pointer, m.pointer, context) == 1
                && BN_is_one(scratch.pointer) == 1
        }
        /// Whether a mod m = b.
        func isResidue(_ a: BigNumber, modulo m: BigNumber, _ b: BigNumber) -> Bool {
            BN_nnmod(scratch.pointer, a.pointer, m.pointer, context) == 1
                && BN_cmp(scratch.pointer, b.pointer) == 0
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
