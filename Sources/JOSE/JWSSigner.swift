public import Cryptography

/// A private key bound to the JWS algorithm and `kid` it signs with.
public struct JWSSigner: Sendable {
    public let algorithm: JWSAlgorithm
    public let keyID: String?
    public let key: PrivateKey

    /// Pairs a key with an algorithm, refusing pairs that do not fit (an EC key for RS256…).
    public init(key: PrivateKey, algorithm: JWSAlgorithm, keyID: String? = nil) throws(JOSEError) {
        switch (algorithm, key) {
        case (.es256, .p256), (.rs256, .rsa), (.ps256, .rsa): break
        default:
            throw JOSEError(
                .algorithmKeyMismatch, "alg \(algorithm) needs a \(algorithm.keyType.rawValue) key")
        }
        self.algorithm = algorithm
        self.key = key
        self.keyID = keyID
    }

    /// A signer from a private JWK; the algorithm is the JWK's `alg`, or the one given, or the
    /// natural one for its type (ES256 for P-256, RS256 for RSA).
    public init(jwk: JWK, algorithm: JWSAlgorithm? = nil) throws(JOSEError) {
        let key = try jwk.signingKey()
        let declared: JWSAlgorithm?
        if let name = jwk.algorithm { declared = try JWSAlgorithm.resolve(name) } else { declared = nil }
        if let declared, let algorithm, declared != algorithm {
            throw JOSEError(
                .keyAlgorithmMismatch, "the key is for \(declared) but \(algorithm) was asked for")
        }
        let chosen = algorithm ?? declared ?? (jwk.keyType == .ec ? .es256 : .rs256)
        try self.init(key: key, algorithm: chosen, keyID: jwk.keyID)
    }

    /// The public JWK that verifies this signer's signatures.
    public var publicJWK: JWK {
        switch key {
        case .p256(let privateKey): JWK(privateKey.publicKey, keyID: keyID, algorithm: algorithm.rawValue)
        case .rsa(let privateKey): JWK(privateKey.publicKey, keyID: keyID, algorithm: algorithm.rawValue)
        }
    }

    /// Signs the JWS signing input.
    public func sign(_ input: [UInt8]) throws(JOSEError) -> [UInt8] {
        do {
            switch (algorithm, key) {
            case (.es256, .p256(let privateKey)): return try privateKey.signature(for: input)
            case (.rs256, .rsa(let privateKey)):
                return try privateKey.signature(for: input, padding: .pkcs1v15)
            case (.ps256, .rsa(let privateKey)): return try privateKey.signature(for: input, padding: .pss)
            default: throw JOSEError(.algorithmKeyMismatch, "alg \(algorithm) does not fit the key")
            }
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.signingFailed, "\(error)")
        }
    }
}
