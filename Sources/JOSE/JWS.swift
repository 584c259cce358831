public import Cryptography
public import JSON

/// A JWS in compact serialisation (RFC 7515 §7.1): `header.payload.signature`.
public struct JWS: Sendable, Hashable {
    public let header: JWSHeader
    public let payload: [UInt8]
    public let signature: [UInt8]
    /// `BASE64URL(header) . BASE64URL(payload)` exactly as received: what the signature covers.
    public let signingInput: [UInt8]

    /// Longest compact JWS accepted. ID tokens are a few KiB; this leaves room for large claim sets.
    public static let maximumLength = 256 * 1024

    /// Splits and decodes a compact JWS without verifying it.
    public static func parse(_ compact: String) throws(JOSEError) -> JWS {
        let bytes = Array(compact.utf8)
        guard bytes.count <= maximumLength else {
            throw JOSEError(.tooLarge, "the token is \(bytes.count) bytes; the limit is \(maximumLength)")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            if parts.count == 5 {
                throw JOSEError(
                    .malformedToken, "the token has 5 parts: an encrypted JWE, which is not supported")
            }
            throw JOSEError(
                .malformedToken, "a compact JWS has 3 dot-separated parts; this token has \(parts.count)")
        }
        guard !parts[0].isEmpty else { throw JOSEError(.malformedToken, "the JOSE header is empty") }
        let headerBytes: [UInt8]
        let payload: [UInt8]
        let signature: [UInt8]
        do {
            headerBytes = try Base64URL.decode(
                String(decoding: parts[0], as: UTF8.self), maximumLength: 16 * 1024)
        } catch {
            throw JOSEError(error.code, "header: \(error.message)")
        }
        do {
            payload = try Base64URL.decode(
                String(decoding: parts[1], as: UTF8.self), maximumLength: maximumLength)
        } catch {
            throw JOSEError(error.code, "payload: \(error.message)")
        }
        do {
            signature = try Base64URL.decode(String(decoding: parts[2], as: UTF8.self), maximumLength: 4096)
        } catch {
            throw JOSEError(error.code, "signature: \(error.message)")
        }
        let headerMembers: [String: JSONValue]
        do {
            headerMembers = try JSONValue.parseObject(headerBytes)
        } catch {
            throw JOSEError(.malformedHeader, "the JOSE header is not a JSON object: \(error.message)")
        }
        let signingInputLength = parts[0].count + 1 + parts[1].count
        return JWS(
            header: JWSHeader(members: headerMembers), payload: payload, signature: signature,
            signingInput: Array(bytes[0..<signingInputLength]))
    }

    /// Signs a payload and returns the compact serialisation.
    ///
    /// `alg` and `kid` come from the signer and cannot be overridden by `extraHeader`.
    public static func sign(
        payload: [UInt8], signer: JWSSigner, extraHeader: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        var members = extraHeader
        members["alg"] = .string(signer.algorithm.rawValue)
        if let keyID = signer.keyID { members["kid"] = .string(keyID) } else { members["kid"] = nil }
        var input = Base64URL.encodeToBytes(JSONValue.object(members).serialized())
        input.append(UInt8(ascii: "."))
        input.append(contentsOf: Base64URL.encodeToBytes(payload))
        let signature = try signer.sign(input)
        input.append(UInt8(ascii: "."))
        input.append(contentsOf: Base64URL.encodeToBytes(signature))
        return String(decoding: input, as: UTF8.self)
    }

    /// Verifies the signature with a key from the collection and returns the key used.
    ///
    /// Checks, in order: `alg` is an allowed asymmetric algorithm (never `none`, never HMAC);
    /// `crit` lists nothing unknown; the key is found by `kid`; the key's type fits the
    /// algorithm; the key's `alg`, `use` and `key_ops` do not contradict the token
    /// (RFC 7517 §4.2–4.4); the signature verifies.
    @discardableResult
    public func verify(
        with keys: JWKCollection, allowedAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases)
    ) throws(JOSEError) -> JWKCollection.Entry {
        let algorithm = try header.validated()
        guard allowedAlgorithms.contains(algorithm) else {
            throw JOSEError(.algorithmNotAllowed, "alg \(algorithm) is not among the allowed algorithms")
        }
        let entry = try keys.key(for: header, algorithm: algorithm)
        try JWS.checkKey(entry.jwk, fits: algorithm)
        try checkSignature(with: entry.key, algorithm: algorithm)
        return entry
    }

    /// Verifies with one known key (for example a DPoP proof's embedded `jwk`).
    public func verify(with jwk: JWK) throws(JOSEError) {
        let algorithm = try header.validated()
        try JWS.checkKey(jwk, fits: algorithm)
        try checkSignature(with: jwk.verificationKey(), algorithm: algorithm)
    }

    /// Verifies with a key the caller already holds as a key, not as a JWK (one registered out
    /// of band, as Apple keeps developers' keys): no conversion, and no JWK members to check.
    public func verify(with key: PublicKey) throws(JOSEError) {
        let algorithm = try header.validated()
        let keyType: JWK.KeyType =
            switch key {
            case .p256: .ec
            case .rsa: .rsa
            }
        try JWS.checkKeyType(keyType, fits: algorithm)
        try checkSignature(with: key, algorithm: algorithm)
    }

    /// The last step of every `verify`: the signature over the signing input.
    private func checkSignature(with key: PublicKey, algorithm: JWSAlgorithm) throws(JOSEError) {
        guard JWS.isValid(signature, for: signingInput, key: key, algorithm: algorithm) else {
            throw JOSEError(.badSignature, "the \(algorithm) signature does not verify")
        }
    }

    /// Refuses a key whose type or declared purpose contradicts the token (RFC 7517 §4.2–4.4).
    static func checkKey(_ jwk: JWK, fits algorithm: JWSAlgorithm) throws(JOSEError) {
        try checkKeyType(jwk.keyType, fits: algorithm)
        if let declared = jwk.algorithm, declared != algorithm.rawValue {
            throw JOSEError(
                .keyAlgorithmMismatch, "the key is for \(declared.prefix(16)) but the token uses \(algorithm)"
            )
        }
        if let use = jwk.use, use != "sig" {
            throw JOSEError(.keyUseMismatch, "the key's use is \"\(use.prefix(16))\", not \"sig\"")
        }
        if let operations = jwk.keyOperations, !operations.contains("verify") {
            throw JOSEError(.keyUseMismatch, "the key's key_ops do not include \"verify\"")
        }
    }

    /// Refuses a key of another type than the algorithm's (RFC 7518 §3.1: `ES256` needs an
    /// `EC` key, `RS256` and `PS256` an `RSA` one).
    private static func checkKeyType(_ keyType: JWK.KeyType, fits algorithm: JWSAlgorithm) throws(JOSEError) {
        guard keyType == algorithm.keyType else {
            throw JOSEError(
                .algorithmKeyMismatch,
                "alg \(algorithm) needs a \(algorithm.keyType.rawValue) key; the key is \(keyType.rawValue)")
        }
    }

    static func isValid(_ signature: [UInt8], for input: [UInt8], key: PublicKey, algorithm: JWSAlgorithm)
        -> Bool
    {
        switch (algorithm, key) {
        case (.es256, .p256(let publicKey)):
            return publicKey.isValidSignature(signature, for: input)
        case (.rs256, .rsa(let publicKey)):
            return publicKey.isValidSignature(signature, for: input, padding: .pkcs1v15)
        case (.ps256, .rsa(let publicKey)):
            return publicKey.isValidSignature(signature, for: input, padding: .pss)
        default:
            return false
        }
    }

    /// The payload parsed as a JSON object (a JWT claims set).
    public func payloadObject() throws(JOSEError) -> [String: JSONValue] {
        do {
            return try JSONValue.parseObject(payload, maximumSize: JWS.maximumLength)
        } catch {
            throw JOSEError(.malformedJSON, "the payload is not a JSON object: \(error.message)")
        }
    }
}
