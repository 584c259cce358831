import Cryptography
import Testing

@Suite("RS256 and PS256 with RSA keys")
struct RSATests {
    static let message = Array("eyJhbGciOiJQUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9".utf8)

    /// Signing RFC 7515 A.2's input with A.2's key gives exactly A.2's signature, which verifies.
    @Test("RFC 7515 A.2 known answer (RS256)")
    func rfc7515A2() throws {
        let key = SharedKeys.rfcRSA
        let signature = try key.signature(for: RFC7515.rs256SigningInput, padding: .pkcs1v15)
        #expect(signature == RFC7515.rs256Signature)
        let publicKey = try RSAPublicKey(n: RFC7515.rsaComponents.n, e: RFC7515.rsaComponents.e)
        #expect(
            publicKey.isValidSignature(
                RFC7515.rs256Signature, for: RFC7515.rs256SigningInput, padding: .pkcs1v15))
        #expect(!publicKey.isValidSignature(RFC7515.rs256Signature, for: Self.message, padding: .pkcs1v15))
        #expect(
            !publicKey.isValidSignature(RFC7515.rs256Signature, for: RFC7515.rs256SigningInput, padding: .pss)
        )
    }

    /// A PS256 signature verifies as PS256, is randomised by its salt, and does not verify as RS256.
    @Test("PS256 round trip, and not valid as RS256")
    func pssRoundTrip() throws {
        let key = SharedKeys.rfcRSA
        let signature = try key.signature(for: Self.message, padding: .pss)
        #expect(signature.count == 256)
        #expect(key.publicKey.isValidSignature(signature, for: Self.message, padding: .pss))
        #expect(!key.publicKey.isValidSignature(signature, for: Self.message, padding: .pkcs1v15))
        #expect(try key.signature(for: Self.message, padding: .pss) != signature)
    }

    /// RS256 and PS256 signatures from a generated key verify, and tampering is detected.
    @Test("generated key signs and verifies; tampering detected", arguments: [RSAPadding.pkcs1v15, .pss])
    func generatedKey(padding: RSAPadding) throws {
        let key = SharedKeys.generatedRSA
        #expect(key.publicKey.modulusBits == 2048)
        #expect(key.publicKey.e == [0x01, 0x00, 0x01])
        let signature = try key.signature(for: Self.message, padding: padding)
        let publicKey = key.publicKey
        #expect(publicKey.isValidSignature(signature, for: Self.message, padding: padding))
        #expect(
            !publicKey.isValidSignature(signature, for: Self.message.flippingBit(at: 3), padding: padding))
        #expect(
            !publicKey.isValidSignature(signature.flippingBit(at: 100), for: Self.message, padding: padding))
        #expect(!publicKey.isValidSignature(Array(signature.dropLast()), for: Self.message, padding: padding))
        #expect(!publicKey.isValidSignature(signature + [0], for: Self.message, padding: padding))
        #expect(!publicKey.isValidSignature([], for: Self.message, padding: padding))
        #expect(!SharedKeys.rfcRSA.publicKey.isValidSignature(signature, for: Self.message, padding: padding))
    }

    /// Components of a generated key round-trip through init(components:) and sign identically (RS256).
    @Test("components round trip")
    func componentsRoundTrip() throws {
        let original = SharedKeys.generatedRSA
        let components = original.components
        #expect(components.p != nil && components.qi != nil)
        let restored = try RSAPrivateKey(components: components)
        #expect(restored.components == components)
        #expect(
            try restored.signature(for: Self.message, padding: .pkcs1v15)
                == original.signature(for: Self.message, padding: .pkcs1v15))
        let publicKey = try RSAPublicKey(n: original.publicKey.n, e: original.publicKey.e)
        #expect(publicKey.n == original.publicKey.n)
        #expect(publicKey.modulusBits == 2048)
    }

    /// The A.2 components read back exactly as the RFC gives them.
    @Test("RFC key components read back unchanged")
    func rfcComponents() {
        #expect(SharedKeys.rfcRSA.components == RFC7515.rsaComponents)
        #expect(SharedKeys.rfcRSA.publicKey.n == RFC7515.rsaComponents.n)
    }

    /// Given only n, e, d, the CRT values are recovered and equal A.2's p, q, dp, dq, qi.
    @Test("CRT values are recovered from n, e, d")
    func factorRecovery() throws {
        let rfc = RFC7515.rsaComponents
        let key = try RSAPrivateKey(components: RSAPrivateComponents(n: rfc.n, e: rfc.e, d: rfc.d))
        #expect(key.components == rfc)
        #expect(
            try key.signature(for: RFC7515.rs256SigningInput, padding: .pkcs1v15) == RFC7515.rs256Signature)
    }

    /// Leading zero bytes on n and e are ignored; n is reported without them.
    @Test("leading zeros of n and e are stripped")
    func leadingZeros() throws {
        let rfc = RFC7515.rsaComponents
        let publicKey = try RSAPublicKey(n: [0, 0] + rfc.n, e: [0] + rfc.e)
        #expect(publicKey.n == rfc.n)
        #expect(publicKey.e == rfc.e)
        #expect(publicKey.modulusBits == 2048)
    }

    /// Inconsistent private components are rejected: wrong d, a wrong CRT value, partial CRT values.
    @Test("inconsistent private components are rejected")
    func inconsistentComponents() {
        let rfc = RFC7515.rsaComponents
        var wrongD = rfc
        wrongD.d = rfc.d.flippingBit(at: 100)
        var wrongDOnly = RSAPrivateComponents(n: rfc.n, e: rfc.e, d: rfc.d.flippingBit(at: 100))
        var wrongQI = rfc
        wrongQI.qi = rfc.qi!.flippingBit(at: 20)
        var wrongDP = rfc
        wrongDP.dp = rfc.dp!.flippingBit(at: 20)
        var wrongP = rfc
        wrongP.p = rfc.p!.flippingBit(at: 20)
        var partial = rfc
        partial.dq = nil
        for components in [wrongD, wrongDOnly, wrongQI, wrongDP, wrongP, partial] {
            #expect(cryptoError { try RSAPrivateKey(components: components) }?.code == .invalidKey)
        }
        wrongDOnly.d = []
        #expect(cryptoError { try RSAPrivateKey(components: wrongDOnly) }?.code == .invalidKey)
    }

    /// Moduli under 2048 bits (RFC 7518 §3.3) or over 8192, even moduli and bad exponents are rejected.
    @Test("out-of-policy public keys are rejected")
    func badPublicKeys() {
        let n = RFC7515.rsaComponents.n
        let e = RFC7515.rsaComponents.e
        let n2047 = [0x7F] + Array(n.dropFirst())
        var even = n
        even[even.count - 1] &= 0xFE
        let cases: [(n: [UInt8], e: [UInt8])] = [
            (n2047, e), (Array(n.prefix(128)), e), ([UInt8](repeating: 0xFF, count: 1025), e), ([], e),
            (even, e),
            (n, []), (n, [1]), (n, [0x01, 0x00, 0x00]), (n, [UInt8](repeating: 0xFF, count: 9)),
        ]
        for (modulus, exponent) in cases {
            #expect(cryptoError { try RSAPublicKey(n: modulus, e: exponent) }?.code == .invalidKey)
        }
        // 8192 bits is the largest accepted modulus.
        #expect(cryptoError { try RSAPublicKey(n: [UInt8](repeating: 0xFF, count: 1024), e: e) } == nil)
    }

    /// RSA-1024 keys are rejected in every form.
    @Test("RSA modulus under 2048 bits is rejected")
    func smallModulus() {
        #expect(cryptoError { try RSAPrivateKey(pem: Fixtures.rsa1024) }?.code == .invalidKey)
        #expect(cryptoError { try RSAPublicKey(pem: Fixtures.rsa1024Public) }?.code == .invalidKey)
        #expect(cryptoError { try PrivateKey(pem: Fixtures.rsa1024) }?.code == .invalidKey)
    }

    /// Key sizes outside 2048...4096 or not a multiple of 8 are refused before any work is done.
    @Test("invalid generation sizes are rejected", arguments: [0, 1024, 2047, 2052, 4104, 8192])
    func badGenerationSizes(bits: Int) {
        #expect(cryptoError { try RSAPrivateKey(bits: bits) }?.code == .invalidInput)
    }

    /// Many tasks signing and verifying with one RSA key at once all succeed.
    @Test("one key signs and verifies concurrently")
    func concurrentUse() async {
        let key = SharedKeys.rfcRSA
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let message = Array("message \(index)".utf8)
                    let padding: RSAPadding = index.isMultiple(of: 2) ? .pss : .pkcs1v15
                    var ok = true
                    for _ in 0..<5 {
                        guard let signature = try? key.signature(for: message, padding: padding) else {
                            return false
                        }
                        ok = ok && key.publicKey.isValidSignature(signature, for: message, padding: padding)
                    }
                    return ok
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [Bool](repeating: true, count: 8))
    }
}
