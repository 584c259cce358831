import COpenSSL

/// Private key material read from PEM, not yet validated by a typed initialiser.
enum DecodedPrivateKey {
    /// `x` and `y` are nil when the encoding omitted the public point.
    case p256(d: [UInt8], x: [UInt8]?, y: [UInt8]?)
    case rsa(RSAPrivateComponents)
}

/// Public key material read from PEM, not yet validated by a typed initialiser.
enum DecodedPublicKey {
    case p256(x: [UInt8], y: [UInt8])
    case rsa(n: [UInt8], e: [UInt8])
}

/// DER/PEM reading and writing through libcrypto's non-deprecated `d2i_*`/`i2d_*` functions.
///
/// Decoding only extracts numbers: the typed key initialisers then rebuild and check every key the same
/// way, whatever encoding it came from.
enum KeyCoding {
    private enum Kind {
        case p256
        case rsa
    }

    // MARK: Reading

    static func decodePrivateKey(pem: String) throws(CryptoError) -> DecodedPrivateKey {
        let block = try PEM.keyBlock(in: pem)
        let pkey: OpaquePointer
        switch block.label {
        case "PRIVATE KEY":
            pkey = try decodePKCS8(block.der)
        case "EC PRIVATE KEY":
            pkey = try decode(block.der, what: "SEC 1 EC private key") { cursor, length in
                d2i_PrivateKey(EVP_PKEY_EC, nil, cursor, length)
            }
        case "RSA PRIVATE KEY":
            pkey = try decode(block.der, what: "PKCS #1 RSA private key") { cursor, length in
                d2i_PrivateKey(EVP_PKEY_RSA, nil, cursor, length)
            }
        case "ENCRYPTED PRIVATE KEY":
            throw CryptoError(.unsupported, "encrypted PKCS #8 private keys are not supported")
        case "PUBLIC KEY", "RSA PUBLIC KEY":
            throw CryptoError(
                .invalidKey, "PEM holds a public key ('\(block.label)'); expected a private key")
        default:
            throw CryptoError(
                .invalidPEM,
                "PEM label '\(block.label)' is not a private key; "
                    + "expected 'PRIVATE KEY', 'EC PRIVATE KEY' or 'RSA PRIVATE KEY'")
        }
        defer { EVP_PKEY_free(pkey) }
        switch try kind(of: pkey) {
        case .p256:
            guard let d = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_PRIV_KEY, width: P256Curve.byteCount)
            else { throw CryptoError(.invalidKey, "EC private key has no valid private scalar") }
            let x = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_EC_PUB_X, width: P256Curve.byteCount)
            let y = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, width: P256Curve.byteCount)
            return .p256(d: d, x: x, y: y)
        case .rsa:
            return .rsa(try rsaPrivateComponents(of: pkey))
        }
    }

    static func decodePublicKey(pem: String) throws(CryptoError) -> DecodedPublicKey {
        let block = try PEM.keyBlock(in: pem)
        let pkey: OpaquePointer
        switch block.label {
        case "PUBLIC KEY":
            pkey = try decode(block.der, what: "SubjectPublicKeyInfo") { cursor, length in
                d2i_PUBKEY(nil, cursor, length)
            }
        case "RSA PUBLIC KEY":
            pkey = try decode(block.der, what: "PKCS #1 RSA public key") { cursor, length in
                d2i_PublicKey(EVP_PKEY_RSA, nil, cursor, length)
            }
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
            throw CryptoError(
                .invalidKey, "PEM holds a private key ('\(block.label)'); expected a public key")
        default:
            throw CryptoError(
                .invalidPEM,
                "PEM label '\(block.label)' is not a public key; expected 'PUBLIC KEY' or 'RSA PUBLIC KEY'")
        }
        defer { EVP_PKEY_free(pkey) }
        switch try kind(of: pkey) {
        case .p256:
            guard let x = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_EC_PUB_X, width: P256Curve.byteCount),
                let y = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, width: P256Curve.byteCount)
            else { throw CryptoError(.invalidKey, "EC public key has no valid point") }
            return .p256(x: x, y: y)
        case .rsa:
            guard let n = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_RSA_N),
                let e = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_RSA_E)
            else { throw CryptoError(.invalidKey, "RSA public key lacks n or e") }
            return .rsa(n: n, e: e)
        }
    }

    /// The integers of an RSA private key held by OpenSSL.
    static func rsaPrivateComponents(of pkey: OpaquePointer) throws(CryptoError) -> RSAPrivateComponents {
        guard sis_rsa_is_multiprime(pkey) == 0 else {
            throw CryptoError(.unsupported, "multi-prime RSA keys (more than two primes) are not supported")
        }
        guard let n = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_RSA_N),
            let e = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_RSA_E),
            let d = KeyParameter.bigEndian(pkey, OSSL_PKEY_PARAM_RSA_D)
        else { throw CryptoError(.invalidKey, "RSA private key lacks n, e or d") }
        return RSAPrivateComponents(
            n: n, e: e, d: d,
            p: KeyParameter.bigEndian(pkey, "rsa-factor1"),
            q: KeyParameter.bigEndian(pkey, "rsa-factor2"),
            dp: KeyParameter.bigEndian(pkey, "rsa-exponent1"),
            dq: KeyParameter.bigEndian(pkey, "rsa-exponent2"),
            qi: KeyParameter.bigEndian(pkey, "rsa-coefficient1"))
    }

    private static func decodePKCS8(_ der: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let info = try decode(der, what: "PKCS #8 private key", free: PKCS8_PRIV_KEY_INFO_free) {
            cursor, length in
            d2i_PKCS8_PRIV_KEY_INFO(nil, cursor, length)
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let pkey = EVP_PKCS82PKEY(info) else {
            throw OpenSSLError.error(.invalidKey, "PKCS #8 private key holds no usable key")
        }
        ERR_clear_error()
        return pkey
    }

    /// Runs a `d2i_*` function over all of `der`; rejects malformed DER and trailing bytes.
    private static func decode(
        _ der: [UInt8], what: String, free: (OpaquePointer?) -> Void = { EVP_PKEY_free($0) },
        _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
    ) throws(CryptoError) -> OpaquePointer {
        guard !der.isEmpty else {
            throw CryptoError(.invalidPEM, "\(what) DER is empty")
        }
        let (object, consumed) = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let object = body(&cursor, buffer.count)
            let consumed: Int
            if let cursor, let start = buffer.baseAddress { consumed = cursor - start } else { consumed = 0 }
            return (object, consumed)
        }
        guard let object else {
            throw OpenSSLError.error(.invalidPEM, "\(what) DER is malformed")
        }
        // Decoders try several structures and may leave errors behind even when one succeeds.
        ERR_clear_error()
        guard consumed == der.count else {
            free(object)
            throw CryptoError(.invalidPEM, "\(what) DER has \(der.count - consumed) trailing bytes")
        }
        return object
    }

    private static func kind(of pkey: OpaquePointer) throws(CryptoError) -> Kind {
        let type = EVP_PKEY_get_base_id(pkey)
        if type == EVP_PKEY_RSA {
            return .rsa
        }
        if type == EVP_PKEY_RSA_PSS {
            throw CryptoError(
                .unsupported,
                "RSASSA-PSS-restricted keys (id-RSASSA-PSS) are not supported; use rsaEncryption")
        }
        if type == EVP_PKEY_EC {
            var name = [CChar](repeating: 0, count: 80)
            var length = 0
            guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 else {
                ERR_clear_error()
                throw CryptoError(
                    .invalidKey, "EC key has explicit curve parameters; only named P-256 is accepted")
            }
            let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard group == SN_X9_62_prime256v1 else {
                throw CryptoError(.invalidKey, "EC key is on curve \(group); expected P-256 (prime256v1)")
            }
            return .p256
        }
        let typeName = EVP_PKEY_get0_type_name(pkey).map { String(cString: $0) } ?? "type \(type)"
        throw CryptoError(.unsupported, "\(typeName) keys are not supported; expected P-256 or RSA")
    }

    // MARK: Writing

    /// PKCS #8 `PrivateKeyInfo` in PEM ("PRIVATE KEY").
    static func pkcs8PEM(_ pkey: OpaquePointer) -> String {
        guard let info = EVP_PKEY2PKCS8(pkey) else {
            fatalError("EVP_PKEY2PKCS8 failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        var der = encode(what: "PKCS #8") { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }
        defer { der.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return PEM.encode(der, label: "PRIVATE KEY")
    }

    /// `SubjectPublicKeyInfo` in PEM ("PUBLIC KEY").
    static func spkiPEM(_ pkey: OpaquePointer) -> String {
        PEM.encode(encode(what: "SubjectPublicKeyInfo") { i2d_PUBKEY(pkey, $0) }, label: "PUBLIC KEY")
    }

    /// Runs an `i2d_*` function twice: once for the length, once into a buffer of that length.
    private static func encode(
        what: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) -> [UInt8] {
        let length = Int(body(nil))
        // Our keys are complete and well formed, so only an allocation failure gets here.
        guard length > 0 else {
            fatalError("encoding \(what) failed: \(OpenSSLError.drain() ?? "unknown error")")
        }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var cursor = buffer.baseAddress
            initialized = Int(body(&cursor))
            guard initialized == length else {
                fatalError("encoding \(what) wrote \(initialized) of \(length) bytes")
            }
        }
    }
}
