/// A public key whose type is only known at run time (a PEM file given on a command line).
public enum PublicKey: Sendable {
    case p256(P256PublicKey)
    case rsa(RSAPublicKey)

    /// A P-256 or RSA public key from PEM: "PUBLIC KEY" (SPKI) or "RSA PUBLIC KEY" (PKCS #1).
    public init(pem: String) throws(CryptoError) {
        switch try KeyCoding.decodePublicKey(pem: pem) {
        case .p256(let x, let y):
            self = .p256(try P256PublicKey(x: x, y: y))
        case .rsa(let n, let e):
            self = .rsa(try RSAPublicKey(n: n, e: e))
        }
    }

    /// PEM `SubjectPublicKeyInfo` ("-----BEGIN PUBLIC KEY-----").
    public func pemRepresentation() -> String {
        switch self {
        case .p256(let key): key.pemRepresentation()
        case .rsa(let key): key.pemRepresentation()
        }
    }
}
