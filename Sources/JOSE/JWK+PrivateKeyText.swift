import Cryptography

extension JWK {
    /// A private signing key from the text of a key file: a private JWK (RFC 7517), or a PEM
    /// private key (RFC 7468: "PRIVATE KEY", "EC PRIVATE KEY" or "RSA PRIVATE KEY"), which
    /// becomes a JWK with no `kid` and the natural algorithm of its type (ES256 for P-256,
    /// RS256 for RSA).
    public static func privateKey(text: String) throws(JOSEError) -> JWK {
        let jwk: JWK
        if text.contains("-----BEGIN") {
            do {
                switch try PrivateKey(pem: text) {
                case .p256(let key): jwk = JWK(key, keyID: nil, algorithm: nil)
                case .rsa(let key): jwk = JWK(key, keyID: nil, algorithm: nil)
                }
            } catch {
                throw JOSEError(.malformedKey, "not a usable PEM private key: \(error.message)")
            }
        } else {
            jwk = try JWK.parse(text)
        }
        guard jwk.isPrivate else {
            throw JOSEError(.malformedKey, "a public key, where a private key (with d) is needed")
        }
        _ = try jwk.signingKey()
        return jwk
    }
}
