import Cryptography
import JOSE
import JSON
import Testing

@Suite("JWK")
struct JWKTests {
    /// RFC 7638 §3.1: the published key has the published thumbprint.
    @Test("RFC 7638 §3.1 thumbprint")
    func rfc7638() throws {
        #expect(try Vectors.rfc7638Key.thumbprint() == Vectors.rfc7638Thumbprint)
    }

    /// Only the required members count: kid, alg and use do not change the thumbprint.
    @Test("thumbprint ignores optional members")
    func thumbprintIgnoresOptional() throws {
        var key = Vectors.rfc7638Key
        key.keyID = "other"
        key.algorithm = nil
        key.use = "sig"
        #expect(try key.thumbprint() == Vectors.rfc7638Thumbprint)
    }

    /// The EC thumbprint input has exactly crv, kty, x, y in order.
    @Test("EC thumbprint input")
    func ecThumbprintInput() throws {
        let input = String(decoding: try Vectors.rfc7515EC.thumbprintInput(), as: UTF8.self)
        #expect(
            input
                == #"{"crv":"P-256","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#
        )
    }

    /// A JWK survives JSON and back, private parts and unknown members included.
    @Test("JSON round trip keeps every member")
    func roundTrip() throws {
        var jwk = JWK(try P256PrivateKey(), keyID: "k")
        jwk.otherMembers["x5t#S256"] = "abc"
        let back = try JWK.parse(jwk.json.serialized())
        #expect(back == jwk)
        #expect(back.isPrivate)
        #expect(!back.publicKey.isPrivate)
        #expect(back.publicKey.json["d"] == nil)
    }

    /// A private JWK becomes a working signer whose signatures its public half verifies.
    @Test("private JWK signs, public JWK verifies")
    func signsAndVerifies() throws {
        let jwk = JWK(try P256PrivateKey(), keyID: "k")
        let signer = try JWSSigner(jwk: jwk)
        let token = try JWS.sign(payload: [1, 2, 3], signer: signer)
        try JWS.parse(token).verify(with: jwk.publicKey)
    }

    /// Keys with missing or ill-typed members, or unsupported types, are malformed.
    @Test(
        "malformed JWKs",
        arguments: [
            #"{"kty":"oct","k":"AAAA"}"#, #"{"crv":"P-256"}"#, #"{"kty":"EC","crv":"P-256","x":"AAAA"}"#,
            #"{"kty":"RSA","n":"AQAB"}"#, #"{"kty":"EC","crv":"P-256","x":1,"y":"AA"}"#,
            #"{"kty":"RSA","n":"AQAB","e":"AQAB","key_ops":"sign"}"#, "[]", "{",
        ])
    func malformed(text: String) {
        #expect(throws: JOSEError.self) { _ = try JWK.parse(text) }
    }

    /// A point that is not on P-256, or a curve other than P-256, cannot verify anything.
    @Test("invalid EC keys are refused when used")
    func invalidECKey() throws {
        var jwk = Vectors.rfc7515EC.publicKey
        jwk.y = [UInt8](repeating: 1, count: 32)
        expectJOSEError(.malformedKey) { _ = try jwk.verificationKey() }
        var otherCurve = Vectors.rfc7515EC.publicKey
        otherCurve.curve = "P-384"
        expectJOSEError(.malformedKey) { _ = try otherCurve.verificationKey() }
    }

    /// A private EC JWK whose d does not match x and y is refused rather than used.
    @Test("mismatched private EC key is refused")
    func mismatchedPrivateKey() throws {
        var jwk = Vectors.rfc7515EC
        jwk.d = try P256PrivateKey().rawScalar
        expectJOSEError(.malformedKey) { _ = try jwk.signingKey() }
    }

    /// JWK Sets skip keys they cannot read and count them (RFC 7517 §5).
    @Test("JWK Set skips unusable keys")
    func jwkSetSkipsUnusable() throws {
        let text = """
            {"keys":[{"kty":"oct","k":"AAAA"},\(String(decoding: Vectors.rfc7638Key.json.serialized(), as: UTF8.self))]}
            """
        let set = try JWKSet.parse(text)
        #expect(set.keys.count == 1)
        #expect(set.ignoredKeyCount == 1)
        expectJOSEError(.malformedKey) { _ = try JWKSet.parse(#"{"keys":{}}"#) }
        expectJOSEError(.malformedJSON) { _ = try JWKSet.parse("nope") }
    }

    /// Base64url decoding is strict: padding, foreign characters, impossible lengths and
    /// non-canonical trailing bits are refused.
    @Test("strict base64url", arguments: ["QQ==", "Q+", "Q/", "Q Q", "QUJDR", "QR", "QUJ", "QU\u{0}", "QUé"])
    func strictBase64URL(text: String) {
        #expect(throws: JOSEError.self) { _ = try Base64URL.decode(text) }
    }

    /// Base64url round-trips every length.
    @Test("base64url round trip")
    func base64URLRoundTrip() throws {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(try Base64URL.decode(encoded) == bytes)
            // As a JWS part: a slice of a longer string.
            let token = "." + encoded + "."
            #expect(try Base64URL.decode(token.dropFirst().dropLast()) == bytes)
        }
    }
}
