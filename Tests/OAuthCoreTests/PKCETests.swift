import Cryptography
import OAuthCore
import Testing

@Suite("PKCE")
struct PKCETests {
    /// RFC 7636 Appendix B: the published verifier gives the published challenge.
    @Test("RFC 7636 Appendix B vector")
    func appendixB() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: pkce.verifier, matches: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
    }

    /// Generated verifiers are 43 characters from 32 random octets, and differ.
    @Test("generated verifiers")
    func generated() {
        let first = PKCE.generate(using: SystemRandom())
        let second = PKCE.generate(using: SystemRandom())
        #expect(first.verifier.count == 43)
        #expect(PKCE.isValidVerifier(first.verifier))
        #expect(first != second)
    }

    /// A seeded source gives the same verifier twice.
    @Test("seeded verifiers are reproducible")
    func seeded() {
        #expect(PKCE.generate(using: SeededRandom(seed: 7)) == PKCE.generate(using: SeededRandom(seed: 7)))
    }

    /// Verifiers outside 43–128 characters of the unreserved alphabet are refused.
    @Test(
        "invalid verifiers",
        arguments: [
            String(repeating: "a", count: 42), String(repeating: "a", count: 129),
            String(repeating: "a", count: 42) + "+", String(repeating: "a", count: 42) + "é",
        ])
    func invalid(verifier: String) {
        #expect(throws: PKCEError.self) { _ = try PKCE(verifier: verifier) }
        #expect(!PKCE.verify(verifier: verifier, matches: PKCE.challenge(for: verifier)))
    }

    /// A wrong verifier does not match the challenge.
    @Test("wrong verifier")
    func wrongVerifier() {
        let pkce = PKCE.generate(using: SystemRandom())
        let other = PKCE.generate(using: SystemRandom())
        #expect(!PKCE.verify(verifier: other.verifier, matches: pkce.challenge))
    }
}
