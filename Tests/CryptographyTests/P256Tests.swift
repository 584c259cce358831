import Cryptography
import Testing

@Suite("ES256 with P-256 keys")
struct P256Tests {
    static let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9".utf8)
    static let key = try! P256PrivateKey()
    /// The group order n of P-256, big-endian.
    static let order = Decode.hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// A fresh signature is 64 bytes and verifies under the key's public key.
    @Test("sign then verify round trip")
    func roundTrip() throws {
        let signature = try Self.key.signature(for: Self.message)
        #expect(signature.count == 64)
        #expect(Self.key.publicKey.isValidSignature(signature, for: Self.message))
        #expect(Self.key.publicKey.isValidSignature(try Self.key.signature(for: []), for: []))
    }

    /// ECDSA uses a fresh nonce, so two signatures of one message differ and both verify.
    @Test("signatures are randomised")
    func randomised() throws {
        let first = try Self.key.signature(for: Self.message)
        let second = try Self.key.signature(for: Self.message)
        #expect(first != second)
        #expect(Self.key.publicKey.isValidSignature(second, for: Self.message))
    }

    /// A changed message, a flipped bit in r or s, and another key's signature are rejected.
    @Test("tampering is detected")
    func tampering() throws {
        let signature = try Self.key.signature(for: Self.message)
        let publicKey = Self.key.publicKey
        #expect(!publicKey.isValidSignature(signature, for: Self.message.flippingBit(at: 0)))
        #expect(!publicKey.isValidSignature(signature.flippingBit(at: 5), for: Self.message))
        #expect(!publicKey.isValidSignature(signature.flippingBit(at: 40), for: Self.message))
        let other = try P256PrivateKey().signature(for: Self.message)
        #expect(!publicKey.isValidSignature(other, for: Self.message))
    }

    /// Signatures of any length but 64 bytes (empty, DER-sized, one byte short or long) are rejected.
    @Test("wrong signature lengths are rejected", arguments: [0, 1, 63, 65, 70, 72, 128])
    func wrongLength(length: Int) throws {
        let signature = try Self.key.signature(for: Self.message)
        let resized = Array((signature + signature + signature).prefix(length))
        #expect(!Self.key.publicKey.isValidSignature(resized, for: Self.message))
    }

    /// r = 0, s = 0, r = n, s = n and all-ones halves are rejected without reaching OpenSSL's error path.
    @Test("out-of-range r and s are rejected")
    func outOfRange() throws {
        let signature = try Self.key.signature(for: Self.message)
        let r = Array(signature[..<32])
        let s = Array(signature[32...])
        let zero = [UInt8](repeating: 0, count: 32)
        let ones = [UInt8](repeating: 0xFF, count: 32)
        let publicKey = Self.key.publicKey
        #expect(!publicKey.isValidSignature(zero + s, for: Self.message))
        #expect(!publicKey.isValidSignature(r + zero, for: Self.message))
        #expect(!publicKey.isValidSignature(Self.order + s, for: Self.message))
        #expect(!publicKey.isValidSignature(r + Self.order, for: Self.message))
        #expect(!publicKey.isValidSignature(r + ones, for: Self.message))
        #expect(!publicKey.isValidSignature(zero + zero, for: Self.message))
        // Control: the unedited halves verify, so the rejections above come from the edits.
        #expect(publicKey.isValidSignature(r + s, for: Self.message))
    }

    /// The RFC 7515 A.3 signature verifies under A.3's public key, and not for another message.
    @Test("RFC 7515 A.3 known-answer verification")
    func rfc7515A3() throws {
        let publicKey = try P256PublicKey(x: RFC7515.es256X, y: RFC7515.es256Y)
        #expect(publicKey.isValidSignature(RFC7515.es256Signature, for: RFC7515.es256SigningInput))
        #expect(!publicKey.isValidSignature(RFC7515.es256Signature, for: RFC7515.rs256SigningInput))
        let signature = try SharedKeys.rfcP256.signature(for: RFC7515.es256SigningInput)
        #expect(publicKey.isValidSignature(signature, for: RFC7515.es256SigningInput))
    }

    /// From d alone the public point is derived, and d, x, y read back as given.
    @Test("raw scalar import derives the public point")
    func rawScalar() throws {
        let key = try P256PrivateKey(rawScalar: RFC7515.es256D)
        #expect(key.publicKey.x == RFC7515.es256X)
        #expect(key.publicKey.y == RFC7515.es256Y)
        #expect(key.rawScalar == RFC7515.es256D)
    }

    /// JWK components of a generated key round-trip through the (d, x, y) and (x, y) initialisers.
    @Test("JWK components round trip")
    func componentsRoundTrip() throws {
        let original = Self.key
        let restored = try P256PrivateKey(
            d: original.rawScalar, x: original.publicKey.x, y: original.publicKey.y)
        #expect(restored.rawScalar == original.rawScalar)
        let publicKey = try P256PublicKey(x: original.publicKey.x, y: original.publicKey.y)
        #expect(publicKey.isValidSignature(try restored.signature(for: Self.message), for: Self.message))
    }

    /// A small scalar keeps its leading zero bytes: rawScalar is always 32 bytes.
    @Test("rawScalar is left-padded to 32 bytes")
    func leftPadded() throws {
        let one = [UInt8](repeating: 0, count: 31) + [1]
        let key = try P256PrivateKey(rawScalar: one)
        #expect(key.rawScalar == one)
        // 1·G is the generator, whose x coordinate SEC 2 lists.
        #expect(
            key.publicKey.x == Decode.hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"))
    }

    /// d = 0, d = n, d ≥ n and scalars of the wrong length are rejected as invalidKey.
    @Test("out-of-range and wrong-length scalars are rejected")
    func badScalars() {
        let cases: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32), Self.order, [UInt8](repeating: 0xFF, count: 32),
            [UInt8](repeating: 1, count: 31), [UInt8](repeating: 1, count: 33), [],
        ]
        for scalar in cases {
            #expect(cryptoError { try P256PrivateKey(rawScalar: scalar) }?.code == .invalidKey)
        }
        // n − 1 is the largest valid scalar.
        var largest = Self.order
        largest[31] -= 1
        #expect(cryptoError { try P256PrivateKey(rawScalar: largest) } == nil)
    }

    /// A point off the curve, coordinates ≥ p and coordinates of the wrong length are rejected.
    @Test("invalid public points are rejected")
    func badPoints() {
        var y = RFC7515.es256Y
        y[31] ^= 1
        #expect(cryptoError { try P256PublicKey(x: RFC7515.es256X, y: y) }?.code == .invalidKey)
        let ones = [UInt8](repeating: 0xFF, count: 32)
        #expect(cryptoError { try P256PublicKey(x: ones, y: RFC7515.es256Y) }?.code == .invalidKey)
        #expect(
            cryptoError { try P256PublicKey(x: [0] + RFC7515.es256X, y: RFC7515.es256Y) }?.code == .invalidKey
        )
        #expect(
            cryptoError { try P256PublicKey(x: Array(RFC7515.es256X.dropFirst()), y: y) }?.code == .invalidKey
        )
        #expect(cryptoError { try P256PublicKey(x: [], y: []) }?.code == .invalidKey)
        #expect(
            cryptoError { try P256PrivateKey(d: RFC7515.es256D, x: RFC7515.es256X, y: y) }?.code
                == .invalidKey)
    }

    /// A (d, x, y) whose point belongs to another scalar is rejected.
    @Test("mismatched d and (x, y) are rejected")
    func mismatchedComponents() {
        let error = cryptoError {
            try P256PrivateKey(d: Self.key.rawScalar, x: RFC7515.es256X, y: RFC7515.es256Y)
        }
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("d·G") == true)
    }

    /// The same seeded source gives the same key; the key is usable.
    @Test("keys drawn from a seeded source are reproducible")
    func seededKeys() throws {
        let first = try P256PrivateKey(random: SeededRandom(seed: 5))
        let second = try P256PrivateKey(random: SeededRandom(seed: 5))
        #expect(first.rawScalar == second.rawScalar)
        #expect(first.rawScalar != (try P256PrivateKey(random: SeededRandom(seed: 6))).rawScalar)
        #expect(first.publicKey.isValidSignature(try first.signature(for: Self.message), for: Self.message))
    }

    /// Many tasks signing and verifying with one key at once all succeed.
    @Test("one key signs and verifies concurrently")
    func concurrentUse() async {
        let key = Self.key
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let message = Array("message \(index)".utf8)
                    var ok = true
                    for _ in 0..<20 {
                        guard let signature = try? key.signature(for: message) else { return false }
                        ok = ok && key.publicKey.isValidSignature(signature, for: message)
                        ok = ok && !key.publicKey.isValidSignature(signature, for: message + [0])
                    }
                    return ok
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 })
    }
}
