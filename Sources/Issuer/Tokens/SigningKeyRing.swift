import Cryptography
import JOSE

/// The issuer's signing keys: one active, and the retired ones still published in the JWKS so
/// that tokens they signed keep verifying until they expire (OpenID Connect Core §10.1.1).
struct SigningKeyRing: Sendable {
    private(set) var active: JWSSigner {
        didSet { tokenSigner = TokenSigner(active) }
    }
    /// The active key with its token headers encoded.
    private(set) var tokenSigner: TokenSigner
    private(set) var retired: [JWSSigner] = []
    private var generation = 1
    let source: SigningKeySource

    /// How many retired keys stay published.
    static let retiredKeysKept = 2

    init(algorithm: JWSAlgorithm, source: SigningKeySource = .generated) throws(JOSEError) {
        self.source = source
        active = try SigningKeyRing.makeSigner(algorithm: algorithm, generation: 1, source: source)
        tokenSigner = TokenSigner(active)
    }

    /// A new active key; the old one is retired but still published.
    mutating func rotate(algorithm: JWSAlgorithm? = nil) throws(JOSEError) {
        generation += 1
        let next = try SigningKeyRing.makeSigner(
            algorithm: algorithm ?? active.algorithm, generation: generation, source: source)
        retired.insert(active, at: 0)
        if retired.count > SigningKeyRing.retiredKeysKept { retired.removeLast() }
        active = next
    }

    /// The public JWK Set (`jwks_uri`).
    var publicKeySet: JWKSet { JWKSet(keys: ([active] + retired).map(\.publicJWK)) }

    /// The same keys with their private members (EC `d`, RFC 7518 §6.2.2.1; RSA `d`, `p`, `q`,
    /// `dp`, `dq`, `qi`, §6.3.2): what the `jwks-private-members` deviation publishes.
    var privateKeySet: JWKSet {
        JWKSet(
            keys: ([active] + retired).map { signer in
                switch signer.key {
                case .p256(let key): JWK(key, keyID: signer.keyID, algorithm: signer.algorithm.rawValue)
                case .rsa(let key): JWK(key, keyID: signer.keyID, algorithm: signer.algorithm.rawValue)
                }
            })
    }

    private static func makeSigner(algorithm: JWSAlgorithm, generation: Int, source: SigningKeySource)
        throws(JOSEError) -> JWSSigner
    {
        let key: PrivateKey
        do {
            key = try source.makeKey(for: algorithm)
        } catch {
            throw JOSEError(.signingFailed, "cannot generate a signing key: \(error.message)")
        }
        let provisional = try JWSSigner(key: key, algorithm: algorithm)
        let thumbprint = try provisional.publicJWK.thumbprint()
        return try JWSSigner(key: key, algorithm: algorithm, keyID: "\(generation)-\(thumbprint.prefix(16))")
    }
}
