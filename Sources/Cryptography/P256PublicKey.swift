import COpenSSL

/// A P-256 public key for verifying ES256 signatures (RFC 7518 §3.4).
public final class P256PublicKey: @unchecked Sendable {
    // Safe to share: every stored property is immutable after init; the EVP_PKEY is never modified and
    // OpenSSL 3 allows concurrent verification with one key; the context pool is itself thread-safe.

    /// `EVP_PKEY` holding only the public point; owned.
    let pkey: OpaquePointer
    /// X coordinate, 32 bytes big-endian.
    public let x: [UInt8]
    /// Y coordinate, 32 bytes big-endian.
    public let y: [UInt8]
    private let verifiers: PKeyContextPool

    /// A public key from its affine coordinates (JWK `x`, `y`); each exactly 32 bytes, the point on the curve.
    public convenience init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        try Self.checkCoordinates(x: x, y: y)
        guard let pkey = Self.makePKey(x: x, y: y, privateScalar: nil) else {
            throw OpenSSLError.error(.invalidKey, "(x, y) is not a point on the P-256 curve")
        }
        self.init(adopting: pkey, x: x, y: y)
    }

    /// A public key from PEM `SubjectPublicKeyInfo` ("PUBLIC KEY"); the key must be P-256.
    public convenience init(pem: String) throws(CryptoError) {
        switch try KeyCoding.decodePublicKey(pem: pem) {
        case .p256(let x, let y):
            try self.init(x: x, y: y)
        case .rsa:
            throw CryptoError(.invalidKey, "PEM holds an RSA public key; expected P-256")
        }
    }

    /// Takes ownership of `pkey`, whose point is (`x`, `y`) and already validated.
    init(adopting pkey: OpaquePointer, x: [UInt8], y: [UInt8]) {
        self.pkey = pkey
        self.x = x
        self.y = y
        verifiers = PKeyContextPool(pkey: pkey, operation: .verify, scheme: .ecdsa)
    }

    deinit { EVP_PKEY_free(pkey) }

    /// PEM `SubjectPublicKeyInfo` ("-----BEGIN PUBLIC KEY-----").
    public func pemRepresentation() -> String {
        KeyCoding.spkiPEM(pkey)
    }

    /// Whether `signature` (64-byte `r ‖ s`) is a valid ES256 signature of `message`.
    ///
    /// Any other length, and r or s outside [1, n-1], give false; this never throws or traps.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        let size = P256Curve.byteCount
        guard signature.count == 2 * size,
            P256Curve.isScalarInRange(signature[..<size]),
            P256Curve.isScalarInRange(signature[size...])
        else { return false }
        let der = ECDSASignatureEncoding.der(fromRaw: signature)
        return SHA256.withDigest(of: message) { digest in
            der.withUnsafeBytes { verifiers.verify(signature: $0, digest: digest) }
        }
    }

    static func checkCoordinates(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == P256Curve.byteCount, y.count == P256Curve.byteCount else {
            throw CryptoError(
                .invalidKey, "P-256 coordinates must be 32 bytes each; got x \(x.count), y \(y.count)")
        }
        guard P256Curve.isFieldElement(x), P256Curve.isFieldElement(y) else {
            throw CryptoError(.invalidKey, "P-256 coordinate is not below the field prime p")
        }
    }

    /// An `EVP_PKEY` for the point (x, y), with the private scalar when given; nil when OpenSSL rejects it.
    static func makePKey(x: [UInt8], y: [UInt8], privateScalar: BigNumber?) -> OpaquePointer? {
        let point = [0x04] + x + y
        return point.withUnsafeBufferPointer { point in
            sis_p256_fromdata(point.baseAddress, point.count, privateScalar?.pointer)
        }
    }
}
