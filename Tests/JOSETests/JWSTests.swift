import Cryptography
import JOSE
import JSON
import Testing

/// Expects a JOSE error with a specific code, so that a check failing for another reason
/// (or not at all) fails the test.
func expectJOSEError(
    _ code: JOSEError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected \(code.rawValue), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as JOSEError {
        #expect(error.code == code, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected JOSEError \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Builds a compact JWS by hand, so tests can forge headers no signer would write.
func forge(header: JSONValue, payload: JSONValue, signature: [UInt8]) -> String {
    Base64URL.encode(header.serialized()) + "." + Base64URL.encode(payload.serialized()) + "."
        + Base64URL.encode(signature)
}

@Suite("JWS")
struct JWSTests {
    static let ecKey = try! P256PrivateKey()
    static let ecJWK = JWK(ecKey, keyID: "ec-1")
    static let ecSigner = try! JWSSigner(jwk: ecJWK)
    static let ecKeys = JWKCollection(keys: [ecJWK.publicKey])

    /// RFC 7515 Appendix A.3: the published ES256 token verifies with the published key.
    @Test("RFC 7515 A.3 ES256 vector verifies")
    func rfc7515ES256() throws {
        let keys = JWKCollection(keys: [Vectors.rfc7515EC.publicKey])
        let jws = try JWS.parse(Vectors.rfc7515ES256Token)
        try jws.verify(with: keys)
        let claims = try JWTClaims(json: try jws.payloadObject())
        #expect(claims.issuer == "joe")
        #expect(claims.expiresAt == Vectors.rfc7515Expiry)
        #expect(claims.otherClaims["http://example.com/is_root"] == true)
    }

    /// RFC 7515 Appendix A.2: RS256 is deterministic, so signing the published input with the
    /// published key must give the published signature byte for byte.
    @Test("RFC 7515 A.2 RS256 vector signs byte for byte")
    func rfc7515RS256() throws {
        let signer = try JWSSigner(jwk: Vectors.rfc7515RSA, algorithm: .rs256)
        let signature = try signer.sign(Array(Vectors.rfc7515RS256SigningInput.utf8))
        #expect(Base64URL.encode(signature) == Vectors.rfc7515RS256Signature)
        let token = Vectors.rfc7515RS256SigningInput + "." + Vectors.rfc7515RS256Signature
        try JWS.parse(token).verify(with: JWKCollection(keys: [Vectors.rfc7515RSA.publicKey]))
    }

    /// Every supported algorithm signs and verifies, and the header carries alg and kid.
    @Test("sign and verify round trip", arguments: [JWSAlgorithm.es256, .rs256, .ps256])
    func roundTrip(algorithm: JWSAlgorithm) throws {
        var jwk = algorithm == .es256 ? JWSTests.ecJWK : Vectors.rfc7515RSA
        jwk.keyID = "k1"
        jwk.algorithm = algorithm.rawValue
        let signer = try JWSSigner(jwk: jwk)
        let token = try JWS.sign(payload: Array("hello".utf8), signer: signer)
        let jws = try JWS.parse(token)
        #expect(jws.header.algorithmName == algorithm.rawValue)
        #expect(jws.header.keyID == "k1")
        #expect(jws.payload == Array("hello".utf8))
        try jws.verify(with: JWKCollection(keys: [jwk.publicKey]))
    }

    /// A changed payload no longer verifies.
    @Test("tampered payload is a bad signature")
    func tamperedPayload() throws {
        let token = try JWS.sign(payload: Array("{\"sub\":\"alice\"}".utf8), signer: JWSTests.ecSigner)
        let parts = token.split(separator: ".")
        let forged = parts[0] + "." + Base64URL.encode("{\"sub\":\"admin\"}") + "." + parts[2]
        expectJOSEError(.badSignature) { try JWS.parse(String(forged)).verify(with: JWSTests.ecKeys) }
    }

    /// A key held as a key (Apple's registered developer keys) verifies what its JWK would, and
    /// refuses a forgery, a key of another type and an unsecured token the same way.
    @Test("verify with a key held as a key")
    func verifyWithKey() throws {
        let token = try JWS.sign(payload: Array("hello".utf8), signer: JWSTests.ecSigner)
        try JWS.parse(token).verify(with: .p256(JWSTests.ecKey.publicKey))
        let otherKey = try P256PrivateKey()
        expectJOSEError(.badSignature) { try JWS.parse(token).verify(with: .p256(otherKey.publicKey)) }
        let rsaKey = try Vectors.rfc7515RSA.publicKey.verificationKey()
        expectJOSEError(.algorithmKeyMismatch) { try JWS.parse(token).verify(with: rsaKey) }
        let unsecured = forge(header: ["alg": "none"], payload: ["sub": "x"], signature: [])
        expectJOSEError(.unsecuredToken) {
            try JWS.parse(unsecured).verify(with: .p256(JWSTests.ecKey.publicKey))
        }
    }

    /// `alg: none` is refused even with an empty signature (RFC 8725 §3.2).
    @Test("alg none is refused", arguments: ["none", "None", "NONE"])
    func algNone(name: String) {
        let token = forge(header: ["alg": .string(name)], payload: ["sub": "x"], signature: [])
        expectJOSEError(.unsecuredToken) { try JWS.parse(token).verify(with: JWSTests.ecKeys) }
    }

    /// Algorithm confusion: an HS256 token whose MAC key is the verifier's public key is refused.
    @Test("HS256 signed with the public key is refused")
    func algorithmConfusion() throws {
        let rsaPublic = Vectors.rfc7515RSA.publicKey
        let secret = rsaPublic.json.serialized()
        let header: JSONValue = ["alg": "HS256", "kid": "2011"]
        let payload: JSONValue = ["sub": "attacker"]
        let input = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(payload.serialized())
        let mac = HMACSHA256.authenticationCode(for: Array(input.utf8), key: secret)
        let token = input + "." + Base64URL.encode(mac)
        var jwk = rsaPublic
        jwk.keyID = "2011"
        expectJOSEError(.algorithmNotAllowed) {
            try JWS.parse(token).verify(with: JWKCollection(keys: [jwk]))
        }
    }

    /// A token for an algorithm the caller does not allow is refused before any key is used.
    @Test("algorithm allow-list is enforced")
    func allowList() throws {
        let token = try JWS.sign(payload: [1], signer: JWSTests.ecSigner)
        expectJOSEError(.algorithmNotAllowed) {
            try JWS.parse(token).verify(with: JWSTests.ecKeys, allowedAlgorithms: [.rs256])
        }
    }

    /// An RS256 header pointing at an EC key is refused for the key type, not tried.
    @Test("key type must fit the algorithm")
    func keyTypeMismatch() throws {
        var ec = JWSTests.ecJWK.publicKey
        ec.algorithm = nil
        let forged = forge(
            header: ["alg": "RS256", "kid": "ec-1"], payload: ["a": 1],
            signature: [UInt8](repeating: 7, count: 256))
        expectJOSEError(.algorithmKeyMismatch) {
            try JWS.parse(forged).verify(with: JWKCollection(keys: [ec]))
        }
    }

    /// Unknown critical header parameters make the token unusable (RFC 7515 §4.1.11).
    @Test("unknown crit is refused")
    func unknownCrit() throws {
        let token = try JWS.sign(
            payload: [1], signer: JWSTests.ecSigner, extraHeader: ["crit": ["exp-v2"], "exp-v2": true])
        expectJOSEError(.unsupportedCriticalHeader) { try JWS.parse(token).verify(with: JWSTests.ecKeys) }
    }

    /// `crit` that is malformed or names a registered parameter is refused.
    @Test("malformed crit is refused", arguments: [JSONValue.array([]), "b64", ["alg"], ["absent"]])
    func malformedCrit(crit: JSONValue) throws {
        let token = try JWS.sign(payload: [1], signer: JWSTests.ecSigner, extraHeader: ["crit": crit])
        expectJOSEError(.malformedHeader) { try JWS.parse(token).verify(with: JWSTests.ecKeys) }
    }

    /// A JWK whose `alg` differs from the token's is not used (RFC 7517 §4.4).
    @Test("JWK alg contradicting the token is refused")
    func jwkAlgContradiction() throws {
        var rsa = Vectors.rfc7515RSA
        rsa.keyID = "r"
        rsa.algorithm = "RS256"
        let ps = try JWSSigner(key: try rsa.signingKey(), algorithm: .ps256, keyID: "r")
        let token = try JWS.sign(payload: [1], signer: ps)
        expectJOSEError(.keyAlgorithmMismatch) {
            try JWS.parse(token).verify(with: JWKCollection(keys: [rsa.publicKey]))
        }
    }

    /// A JWK marked for encryption, or without the verify operation, is not used for signatures.
    @Test("JWK use and key_ops contradicting the token are refused")
    func jwkUseContradiction() throws {
        let token = try JWS.sign(payload: [1], signer: JWSTests.ecSigner)
        var encryption = JWSTests.ecJWK.publicKey
        encryption.use = "enc"
        expectJOSEError(.keyUseMismatch) {
            try JWS.parse(token).verify(with: JWKCollection(keys: [encryption]))
        }
        var signOnly = JWSTests.ecJWK.publicKey
        signOnly.keyOperations = ["sign"]
        expectJOSEError(.keyUseMismatch) {
            try JWS.parse(token).verify(with: JWKCollection(keys: [signOnly]))
        }
    }

    /// A `kid` that is not in the set is an unknown key (the cue to re-fetch the JWKS once).
    @Test("unknown kid")
    func unknownKid() throws {
        let other = try JWSSigner(key: .p256(try P256PrivateKey()), algorithm: .es256, keyID: "rotated")
        let token = try JWS.sign(payload: [1], signer: other)
        expectJOSEError(.unknownKey) { try JWS.parse(token).verify(with: JWSTests.ecKeys) }
    }

    /// No `kid` and exactly one key: that key is used (rp-id_token-kid-absent-single-jwks).
    @Test("no kid with a single key verifies")
    func noKidSingleKey() throws {
        let signer = try JWSSigner(key: .p256(JWSTests.ecKey), algorithm: .es256)
        let token = try JWS.sign(payload: [1], signer: signer)
        var key = JWSTests.ecJWK.publicKey
        key.keyID = nil
        try JWS.parse(token).verify(with: JWKCollection(keys: [key]))
    }

    /// No `kid` and several candidate keys: refused (rp-id_token-kid-absent-multiple-jwks).
    @Test("no kid with several keys is ambiguous")
    func noKidSeveralKeys() throws {
        let signer = try JWSSigner(key: .p256(JWSTests.ecKey), algorithm: .es256)
        let token = try JWS.sign(payload: [1], signer: signer)
        let second = JWK(try P256PrivateKey().publicKey, keyID: "ec-2")
        expectJOSEError(.ambiguousKey) {
            try JWS.parse(token).verify(with: JWKCollection(keys: [JWSTests.ecJWK.publicKey, second]))
        }
    }

    /// Wrong part counts, JWE tokens, empty headers and oversize tokens are malformed, not crashes.
    @Test(
        "malformed compact serialisations",
        arguments: [
            ("a.b", JOSEError.Code.malformedToken), ("a.b.c.d.e", .malformedToken),
            (".e30.", .malformedToken),
            ("e30=.e30.", .malformedBase64URL), ("e3!.e30.", .malformedBase64URL),
            ("bnVsbA.e30.", .malformedHeader),
            ("W10.e30.", .malformedHeader), ("eyJ.e30.", .malformedBase64URL),
        ])
    func malformed(token: String, code: JOSEError.Code) {
        expectJOSEError(code) { _ = try JWS.parse(token) }
    }

    /// Oversized tokens are refused before decoding.
    @Test("oversized token")
    func oversized() {
        let token = String(repeating: "a", count: JWS.maximumLength + 1)
        expectJOSEError(.tooLarge) { _ = try JWS.parse(token) }
    }

    /// A signer refuses a key of the wrong type for its algorithm.
    @Test("signer refuses mismatched key")
    func signerMismatch() {
        expectJOSEError(.algorithmKeyMismatch) {
            _ = try JWSSigner(key: .p256(JWSTests.ecKey), algorithm: .rs256)
        }
    }
}
