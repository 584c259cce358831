import COpenSSL

/// A P-256 private key for ES256 signatures (RFC 7518 §3.4): ECDSA over SHA-256, `r ‖ s` encoding.
public final class P256PrivateKey: @unchecked Sendable {
    // Safe to share: every stored property is immutable after init; the EVP_PKEY is never modified and
    // OpenSSL 3 allows concurrent signing with one key; the context pool is itself thread-safe.

    /// `EVP_PKEY` holding the scalar and the point; owned.
    private let pkey: OpaquePointer
    public let publicKey: P256PublicKey
    private let signers: PKeyContextPool

    /// A new random key from OpenSSL's CSPRNG.
    public convenience init() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLError.error(.keyGenerationFailed, "could not create an EC key generation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
            EVP_PKEY_generate(context, &generated) == 1, let pkey = generated
        else { throw OpenSSLError.error(.keyGenerationFailed, "P-256 key generation failed") }
        guard let x = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_EC_PUB_X, width: P256Curve.byteCount),
            let y = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, width: P256Curve.byteCount),
            let publicPKey = P256PublicKey.makePKey(x: x, y: y, privateScalar: nil)
        else {
            EVP_PKEY_free(pkey)
            throw OpenSSLError.error(.keyGenerationFailed, "could not read the generated P-256 public point")
        }
        self.init(adopting: pkey, publicKey: P256PublicKey(adopting: publicPKey, x: x, y: y))
    }

    /// A key from its 32-byte private scalar d (big-endian), which must be in [1, n-1]; the public point d·G
    /// is derived.
    public convenience init(rawScalar: [UInt8]) throws(CryptoError) {
        try Self.checkScalar(rawScalar)
        let (x, y) = try Self.publicPoint(of: rawScalar)
        try self.init(checkedScalar: rawScalar, x: x, y: y)
    }

    /// A key from JWK `d`, `x`, `y` (RFC 7518 §6.2); rejects (x, y) that is not d·G.
    public convenience init(d: [UInt8], x: [UInt8], y: [UInt8]) throws(CryptoError) {
        try Self.checkScalar(d)
        try P256PublicKey.checkCoordinates(x: x, y: y)
        let derived = try Self.publicPoint(of: d)
        guard derived.x == x, derived.y == y else {
            throw CryptoError(
                .invalidKey, "public point (x, y) does not match the private scalar d (x, y ≠ d·G)")
        }
        try self.init(checkedScalar: d, x: x, y: y)
    }

    /// A key from PEM: PKCS #8 ("PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY"); the curve must be P-256.
    public convenience init(pem: String) throws(CryptoError) {
        switch try KeyCoding.decodePrivateKey(pem: pem) {
        case .p256(let d, let x?, let y?):
            try self.init(d: d, x: x, y: y)
        case .p256(let d, _, _):
            try self.init(rawScalar: d)
        case .rsa:
            throw CryptoError(.invalidKey, "PEM holds an RSA private key; expected P-256")
        }
    }

    /// A key whose scalar is drawn from `random` by rejection sampling, so a seeded source gives the
    /// same key every run.
    public convenience init(random: some RandomSource) throws(CryptoError) {
        for _ in 0..<64 {
            let candidate = random.bytes(count: P256Curve.byteCount)
            guard candidate.count == P256Curve.byteCount else {
                throw CryptoError(.randomFailed, "random source returned \(candidate.count) of 32 bytes")
            }
            // The chance of a candidate ≥ n is about 2⁻³², so 64 rejections in a row mean a broken source.
            if P256Curve.isScalarInRange(candidate) {
                try self.init(rawScalar: candidate)
                return
            }
        }
        throw CryptoError(.randomFailed, "random source produced 64 scalars outside [1, n-1]")
    }

    private convenience init(checkedScalar d: [UInt8], x: [UInt8], y: [UInt8]) throws(CryptoError) {
        let scalar = try BigNumber(bigEndian: d)
        guard let pkey = P256PublicKey.makePKey(x: x, y: y, privateScalar: scalar),
            let publicPKey = P256PublicKey.makePKey(x: x, y: y, privateScalar: nil)
        else { throw OpenSSLError.error(.invalidKey, "OpenSSL rejected the P-256 key") }
        self.init(adopting: pkey, publicKey: P256PublicKey(adopting: publicPKey, x: x, y: y))
    }

    private init(adopting pkey: OpaquePointer, publicKey: P256PublicKey) {
        self.pkey = pkey
        self.publicKey = publicKey
        signers = PKeyContextPool(pkey: pkey, operation: .sign, scheme: .ecdsa)
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The private scalar d: 32 bytes, big-endian, left-padded with zeros.
    public var rawScalar: [UInt8] {
        guard let d = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_PRIV_KEY, width: P256Curve.byteCount)
        else {
            fatalError("P-256 key lost its private scalar: \(OpenSSLError.drain() ?? "unknown error")")
        }
        return d
    }

    /// PEM PKCS #8 ("-----BEGIN PRIVATE KEY-----").
    public func pemRepresentation() -> String {
        KeyCoding.pkcs8PEM(pkey)
    }

    /// The ES256 signature of `message`: SHA-256, then ECDSA with a fresh random nonce; 64 bytes `r ‖ s`.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let signature: [UInt8]? = SHA256.withDigest(of: message) { digest in
            // DER ECDSA-Sig-Value for P-256 is at most 72 bytes.
            withUnsafeTemporaryAllocation(byteCount: 80, alignment: 1) { der in
                guard let length = signers.sign(digest: digest, into: der) else { return nil }
                return ECDSASignatureEncoding.raw(
                    fromDER: UnsafeRawBufferPointer(rebasing: der[..<length]), width: P256Curve.byteCount)
            }
        }
        guard let signature else {
            throw OpenSSLError.error(.signingFailed, "ECDSA P-256 signing failed")
        }
        return signature
    }

    private static func checkScalar(_ d: [UInt8]) throws(CryptoError) {
        guard d.count == P256Curve.byteCount else {
            throw CryptoError(.invalidKey, "P-256 private scalar must be 32 bytes, got \(d.count)")
        }
        guard P256Curve.isScalarInRange(d) else {
            throw CryptoError(.invalidKey, "P-256 private scalar is not in [1, n-1]")
        }
    }

    /// d·G as 32-byte coordinates.
    private static func publicPoint(of d: [UInt8]) throws(CryptoError) -> (x: [UInt8], y: [UInt8]) {
        let group = OpenSSLObjects.shared.p256
        let scalar = try BigNumber(bigEndian: d)
        guard let point = EC_POINT_new(group), let bigX = BigNumber.make(), let bigY = BigNumber.make() else {
            throw OpenSSLError.error(.invalidKey, "could not allocate an EC point")
        }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, scalar.pointer, nil, nil, nil) == 1,
            EC_POINT_get_affine_coordinates(group, point, bigX.pointer, bigY.pointer, nil) == 1,
            let x = BigNumber.bigEndianBytes(of: bigX.pointer, width: P256Curve.byteCount),
            let y = BigNumber.bigEndianBytes(of: bigY.pointer, width: P256Curve.byteCount)
        else { throw OpenSSLError.error(.invalidKey, "could not compute the public point d·G") }
        return (x, y)
    }
}
