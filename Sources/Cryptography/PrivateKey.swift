/// A private key whose type is only known at run time (a PEM file given on a command line).
public enum PrivateKey: Sendable {
    case p256(P256PrivateKey)
    case rsa(RSAPrivateKey)

    /// A P-256 or RSA private key from PEM: "PRIVATE KEY" (PKCS #8), "EC PRIVATE KEY" or "RSA PRIVATE KEY".
    public init(pem: String) throws(CryptoError) {
        switch try KeyCoding.decodePrivateKey(pem: pem) {
        case .p256(let d, let x?, let y?):
            self = .p256(try P256PrivateKey(d: d, x: x, y: y))
        case .p256(let d, _, _):
            self = .p256(try P256PrivateKey(rawScalar: d))
        case .rsa(let components):
            self = .rsa(try RSAPrivateKey(components: components))
        }
    }

    /// The matching public key.
    public var publicKey: PublicKey {
        switch self {
        case .p256(let key): .p256(key.publicKey)
        case .rsa(let key): .rsa(key.publicKey)
        }
    }

    /// PEM PKCS #8 ("-----BEGIN PRIVATE KEY-----").
    public func pemRepresentation() -> String {
        switch self {
        case .p256(let key): key.pemRepresentation()
        case .rsa(let key): key.pemRepresentation()
        }
    }
}
