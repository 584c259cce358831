import Cryptography
import JOSE
import JSON
import Testing

/// Mutated inputs must give typed errors (or, rarely, still be valid), never a crash or hang.
@Suite("JOSE robustness")
struct RobustnessTests {
    /// Deterministic byte mutations: flip, delete, duplicate, insert a separator.
    static func mutations(of text: String, count: Int, seed: UInt64) -> [String] {
        let random = SeededRandom(seed: seed)
        let original = Array(text.utf8)
        let alphabet = Array(".=+/-_{}\"\\:,[]0aZ \u{0}".utf8) + [0xFF, 0xC3]
        return (0..<count).map { _ in
            var bytes = original
            let edits = Int(random.bytes(count: 1)[0] % 4) + 1
            for _ in 0..<edits where !bytes.isEmpty {
                let choice = random.bytes(count: 3)
                let position = Int(choice[0]) << 8 | Int(choice[1])
                let index = position % bytes.count
                switch choice[2] % 4 {
                case 0: bytes[index] ^= 1 << (choice[2] % 8)
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(bytes[index], at: index)
                default: bytes.insert(alphabet[Int(choice[2]) % alphabet.count], at: index)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// 3,000 mutated tokens: parse and verify either succeed or throw a JOSEError.
    @Test("mutated tokens give typed errors")
    func mutatedTokens() throws {
        let jwk = JWK(try P256PrivateKey(), keyID: "k")
        let token = try JWT.sign(
            JWTClaims(
                issuer: "https://i", subject: "alice", audience: .single("app"), expiresAt: 2_000_000_000),
            signer: try JWSSigner(jwk: jwk))
        let keys = JWKCollection(keys: [jwk.publicKey])
        var accepted = 0
        for mutated in Self.mutations(of: token, count: 3000, seed: 42) {
            do {
                _ = try JWT.verify(mutated, keys: keys, validation: JWTValidation(now: 1_900_000_000))
                accepted += 1
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
        // Strict base64url means only mutations that leave the bytes identical can survive.
        #expect(accepted < 30)
    }

    /// 3,000 mutated JWK Sets: parsing either succeeds or throws a JOSEError.
    @Test("mutated JWK Sets give typed errors")
    func mutatedKeySets() throws {
        let set = JWKSet(keys: [
            JWK(try P256PrivateKey().publicKey, keyID: "a"), Vectors.rfc7515RSA.publicKey,
        ])
        let text = String(decoding: set.json.serialized(), as: UTF8.self)
        for mutated in Self.mutations(of: text, count: 3000, seed: 7) {
            if let parsed = try? JWKSet.parse(mutated) {
                _ = JWKCollection(parsed)
            }
        }
    }
}
