public import Cryptography
import JOSE

/// Proof Key for Code Exchange with the S256 method only (RFC 7636).
///
/// `plain` is not offered: it protects nothing against an attacker who can read the
/// authorization request, and OAuth 2.0 Security BCP (RFC 9700 §2.1.1) says to use S256.
public struct PKCE: Sendable, Hashable {
    /// The `code_verifier` (RFC 7636 §4.1).
    public let verifier: String
    /// The `code_challenge`: `BASE64URL(SHA256(ASCII(code_verifier)))` (RFC 7636 §4.2).
    public let challenge: String
    /// Always `S256`.
    public static let method = "S256"

    /// Uses a given verifier, checking its length and alphabet (RFC 7636 §4.1).
    public init(verifier: String) throws(PKCEError) {
        guard PKCE.isValidVerifier(verifier) else {
            throw PKCEError(
                "code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]; got \(verifier.utf8.count) characters"
            )
        }
        self.verifier = verifier
        self.challenge = PKCE.challenge(for: verifier)
    }

    /// A fresh verifier from 32 random octets, base64url encoded to 43 characters (RFC 7636 §4.1).
    public static func generate(using random: some RandomSource) -> PKCE {
        let verifier = Base64URL.encode(random.bytes(count: 32))
        return PKCE(checkedVerifier: verifier)
    }

    private init(checkedVerifier: String) {
        verifier = checkedVerifier
        challenge = PKCE.challenge(for: checkedVerifier)
    }

    /// The S256 challenge of a verifier.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
    }

    /// Whether a verifier has the length and characters RFC 7636 §4.1 allows.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        let bytes = verifier.utf8
        guard (43...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                true
            default: false
            }
        }
    }

    /// The server's check (RFC 7636 §4.6): the verifier is well formed and hashes to the
    /// challenge, compared in constant time.
    public static func verify(verifier: String, matches challenge: String) -> Bool {
        guard isValidVerifier(verifier) else { return false }
        return ConstantTime.equals(Array(PKCE.challenge(for: verifier).utf8), Array(challenge.utf8))
    }
}

/// A code verifier that RFC 7636 does not allow.
public struct PKCEError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
