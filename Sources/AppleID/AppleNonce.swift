import Cryptography

/// The nonce rule of native Sign in with Apple: the app keeps a raw nonce, puts
/// `SHA256(rawNonce)` as lowercase hex in the request, and its server compares the token's
/// `nonce` with the hash of the raw value it was given.
public enum AppleNonce {
    /// `SHA256(rawNonce)` as 64 lowercase hex digits (of the UTF-8 bytes).
    public static func sha256Hex(_ rawNonce: String) -> String {
        AppleIdentifiers.hex(SHA256.hash(rawNonce))
    }
}
