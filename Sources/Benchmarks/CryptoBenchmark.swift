import Cryptography
import JOSE
import JSON

func benchCrypto(seconds: Double) throws {
    print("openssl speed -seconds \(Int(seconds.rounded(.up))) ecdsap256 rsa2048 …")
    let openssl = try runOpenSSLSpeed(seconds: Int(seconds.rounded(.up)))
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9".utf8)

    let p256 = try P256PrivateKey()
    let p256Public = p256.publicKey
    let ecSignature = try p256.signature(for: message)
    let rsa = try RSAPrivateKey(bits: 2048)
    let rsaPublic = rsa.publicKey
    let rsaSignature = try rsa.signature(for: message, padding: .pkcs1v15)

    let es256Sign = try measure(seconds: seconds) { _ = try p256.signature(for: message) }
    let es256Verify = measure(seconds: seconds) {
        precondition(p256Public.isValidSignature(ecSignature, for: message))
    }
    let rs256Sign = try measure(seconds: seconds) { _ = try rsa.signature(for: message, padding: .pkcs1v15) }
    let rs256Verify = measure(seconds: seconds) {
        precondition(rsaPublic.isValidSignature(rsaSignature, for: message, padding: .pkcs1v15))
    }

    // A whole JWT: claims encoded, header encoded, signed, serialised.
    let signer = try JWSSigner(key: .p256(p256), algorithm: .es256, keyID: "bench")
    var counter: Int64 = 0
    let jwtSign = try measure(seconds: seconds) {
        counter += 1
        let claims = JWTClaims(
            issuer: "http://127.0.0.1:8080", subject: "auth0|alice", audience: .single("com.example.app"),
            expiresAt: 1_800_000_000 + counter, issuedAt: 1_799_996_400 + counter, jwtID: "jti-\(counter)",
            nonce: "n-0S6_WzA2Mj",
            otherClaims: ["scope": "openid profile email", "email": "alice@example.com"])
        _ = try JWT.sign(claims, signer: signer)
    }

    print("")
    print("Swift API (one thread) next to `openssl speed` (one thread), same machine, same run:")
    print(row("ES256 sign", es256Sign, openssl.ecdsaSign, "openssl ecdsap256 sign", target: 0.8))
    print(row("ES256 verify", es256Verify, openssl.ecdsaVerify, "openssl ecdsap256 verify", target: 0.8))
    print(row("RS256 sign", rs256Sign, openssl.rsaSign, "openssl rsa2048 sign", target: 0.8))
    print(row("RS256 verify", rs256Verify, openssl.rsaVerify, "openssl rsa2048 verify", target: 0.8))
    print(row("JWT sign (ES256, whole)", jwtSign, es256Sign, "raw ES256 sign (above)", target: 0.6))
}
