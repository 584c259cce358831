import Cryptography
import Foundation
import JOSE
import JSON
import TestSupport
import Testing

@testable import Issuer

// The token endpoint's own encoding and signing must give what the JOSE module gives.
@Suite("Token signing fast path")
struct TokenSignerTests {
    /// One RSA key for RS256 and PS256, fixed for the test: generating one blocks a thread for
    /// 100-200 ms, which timing-sensitive tests running alongside notice.
    static let rsaKey = try! RSAPrivateKey(
        pem: """
            -----BEGIN PRIVATE KEY-----
            MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCzNcxEmSA3/tuT
            ju5Sr4/WLmo6Jp7lgBoG5LGj+mJTqw2I685dUz4EWcM1MfKeHPj0k9Av1iYmgawa
            Rwk8YFRba6l2wIgkUw8GJz3P1L++P2OjAQtEa+ecGNgaAziEJ1a2MbNYenS9t/fK
            DDpmxdnBMNTdULJlRazpDrm+ndf6gOUfJYlv/siMbWmxMJpi5C719um21pJWmnOn
            NhXWX8fHZY2/8Xa76+ShzG5JMstjhDEoZ+gQzSMf6b7KITBRDoNzkgzGLJVLbFRo
            pwxR2rzyQnsV6BjB9wcEhlgNMU7DUR2yTrySxOD2EehHCGceZThY4oaFVhDAVYgT
            qXID6eWNAgMBAAECggEAK3jiqQZTLjos1iXfMqAjXnOqcZpCQ85YIfFylSJNHVo6
            YYtAJ1vkyKXkqGAKKGhDTQMZRq1mWkNs9f/i4epFNFsQw/2O2O7sD1RQFn0XmUUj
            vJwpeUrKp49QRrkeydIIIxC53n3wGUCKA5GFTj5y5P4dOOWVLONivzNDBBYimQGo
            hqC+6PIac+YjJC2fJrfUtXaiSktL2xktI7RDG/3nOl1rIyv1KM6w0xDBPMpc+YWm
            snGBx4QhRlLzkZmNKpDXin2fWE902qG6kATr+ItiEGEuBDU3FDvkRgsWcSdd1Gyt
            nS6P48nZJa+sJS0iBuquareYaus7al7dRZac0D6fYQKBgQDsZWSYYWSgJ4REMp2v
            7iPK0S46f25fgbYihG7X0bB12kR2f1x5j5jlQ37279D9zV1htkKbvZOFvxisWXQI
            DV3vzGviWfKpCxxTmuOYpr4pK4XQjB97mkeVvuGyU3TaCKocWlGoISaMopYi7NCr
            FfpyLUMjqXQc8UxMzcrwXwuQ4QKBgQDCEl4dCwbxT2RK9PAniG8ADit/97bweiz1
            FNvhkkoiRPnvwzDupvAtBy9BnO6fbOTYY7feBApcMLnJ+OKKzNy7tiujqqoZ4qw6
            uuABqAWwcoTUvNmsoG/+LGyY75l04aU6skt953fBg+2OiFHj8XFkG/6Zua6BmeqG
            Z+R3UPkuLQKBgDQQeMFe4eysB2OFylkPF+75dzcHDeYXCWg8xrTdyAGM2vtGPbXA
            PKpx3SrB0sOzUVfN7omijTUty19aLEYBu6iu2yv1J463lbuMJ4hdYRBsN4Kg+eYd
            Kpr+eXLvEpNaySyJb+aZtoXO4UY75hFoO8qd0WWvUpV1R5q60HF0XXXBAoGBAIQA
            OkNG3NIFThItx6scAWPoP24q7yNh9nI8XdJvzjzA7b9G5GFu6q211U6rjyKgzobg
            TI+V7/YErlnSD0SZUwnaPpRz4H76zmqj8Pkvb680NWT9jpD8DzCyxqq/TYFSeTAT
            VYWtiqb1NP9deVWxQ47z+5hT034TUpFY2OzPBq2BAoGAGST4rrrn636Q5qUEjoqn
            1c0ZVkyNDcVUl3lmnfLEhuPBVb9giSOVJJKxEro51iT+9eoSXNzdY8TgMe766wkg
            IooBCcu5mDs7bWbHZDMpE7y74ao22M6GXD9K2WCCUjTZjYnKQzNnBMRYg+Q9XV1b
            yTO/D51ytqM0k6in7lyIJG0=
            -----END PRIVATE KEY-----
            """)

    /// Every length and byte value encodes as Foundation's base64, made URL-safe and unpadded.
    @Test("base64url as Foundation's base64 writes it")
    func base64URL() {
        func reference(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let random = SeededRandom(seed: 7)
        for length in 0...67 {
            let bytes = random.bytes(count: length)
            #expect(Base64URL.encode(bytes) == reference(bytes), "\(length) bytes")
            #expect(Base64URL.encode(bytes[...]) == reference(bytes), "\(length) bytes, slice")
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64URL.encode(all) == reference(all))
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
