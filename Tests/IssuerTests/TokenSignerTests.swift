import Cryptography
import JOSE
import JSON
import Testing

@testable import Issuer

// The token endpoint's own encoding and signing must give what the JOSE module gives.
@Suite("Token signing fast path")
struct TokenSignerTests {
    /// One RSA key for RS256 and PS256: generating one blocks a thread for 100-200 ms.
    static let rsaKey = try! RSAPrivateKey()

    /// Every length and byte value encodes as JOSE's base64url does.
    @Test("base64url as JOSE writes it")
    func base64URL() {
        let random = SeededRandom(seed: 7)
        for length in 0...67 {
            let bytes = random.bytes(count: length)
            #expect(Base64URLWriter.encode(bytes) == Base64URL.encode(bytes), "\(length) bytes")
            #expect(Base64URLWriter.encode(bytes[...]) == Base64URL.encode(bytes), "\(length) bytes, slice")
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64URLWriter.encode(all) == Base64URL.encode(all))
    }

    /// A claims set written from a list is the bytes `JWTClaims.json.serialized()` gives.
    @Test("claims payload as JWTClaims serialises")
    func claimsPayload() {
        var claims = JWTClaims(
            issuer: "https://issuer.test", subject: "auth0|alice", audience: .multiple(["api", "userinfo"]),
            expiresAt: 200, notBefore: 50, issuedAt: 100, jwtID: "j", authorizedParty: "app", nonce: "n")
        let extra: [(key: String, value: JSONValue)] = [
            ("scope", "openid"), ("cnf", ["jkt": "t"]), ("email_verified", true), ("auth_time", 99),
        ]
        var reference = claims
        reference.otherClaims = Dictionary(uniqueKeysWithValues: extra)
        #expect(Issuer.claimsPayload(claims, extra: extra) == reference.json.serialized())
        claims.audience = .single("app")
        claims.nonce = nil
        reference.audience = .single("app")
        reference.nonce = nil
        #expect(Issuer.claimsPayload(claims, extra: extra) == reference.json.serialized())
    }

    /// Header and payload are what `JWS.sign` writes (the whole token, for deterministic RS256),
    /// and the signature verifies with the key's JWK.
    @Test("signs as JWS.sign does", arguments: [JWSAlgorithm.es256, .rs256, .ps256])
    func signsLikeJWS(algorithm: JWSAlgorithm) throws {
        let key: PrivateKey =
            algorithm == .es256 ? .p256(try P256PrivateKey()) : .rsa(TokenSignerTests.rsaKey)
        for keyID in ["1-abc", nil] {
            let signer = try JWSSigner(key: key, algorithm: algorithm, keyID: keyID)
            let tokenSigner = TokenSigner(signer)
            let payload = Array(#"{"sub":"é/\"x"}"#.utf8)
            for (type, header) in [
                ("at+jwt", tokenSigner.accessTokenHeader), ("JWT", tokenSigner.idTokenHeader),
            ] {
                let fast = try tokenSigner.sign(payload: payload, header: header)
                let reference = try JWS.sign(
                    payload: payload, signer: signer, extraHeader: ["typ": .string(type)])
                if algorithm == .rs256 {
                    #expect(fast == reference)
                }
                #expect(fast.split(separator: ".").prefix(2) == reference.split(separator: ".").prefix(2))
                let parsed = try JWS.parse(fast)
                try parsed.verify(with: signer.publicJWK)
                #expect(parsed.payload == payload)
                #expect(parsed.header.type == type)
            }
        }
    }
}
