import Cryptography
import JOSE

/// What a refresh token says about itself, so that one the issuer no longer stores is still
/// known as a token of its family (RFC 9700 §4.14.2 reuse detection without keeping every
/// rotated token).
///
/// A token is 32 bytes, base64url (43 characters, as random tokens were):
///
/// | bytes | what |
/// |---|---|
/// | 0..<4 | the family id (`RefreshFamily.ID`, little-endian) |
/// | 4..<9 | when the token expires, issuer seconds (40 bits, little-endian) |
/// | 9 | flags: bit 0, the token is bound to a DPoP key (RFC 9449 §5) |
/// | 10..<16 | 48 random bits (or, under `django-oauth-toolkit`, derived from the predecessor) |
/// | 16..<32 | the first 128 bits of HMAC-SHA256 of bytes 0..<16 under the state's key |
///
/// The tag makes the first 16 bytes trustworthy: nobody without the key can make a token that
/// names a family. The key is drawn for each issuer state, so a token from before a reset
/// (`POST /_admin/reset`) names no family.
struct RefreshTokenFormat: Sendable {
    /// Random bytes per token.
    static let seedLength = 6
    static let tagLength = 16

    var familyID: RefreshFamily.ID
    var expiresAt: Int64
    var bound: Bool

    /// The largest expiry 40 bits hold.
    private static let largestExpiry: Int64 = (1 << 40) - 1

    /// The token for these fields and `seed` (`seedLength` bytes), with its tag.
    func token(seed: [UInt8], key: HMACSHA256Key) -> String {
        precondition(seed.count == RefreshTokenFormat.seedLength)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        withUnsafeBytes(of: familyID.littleEndian) { bytes += $0 }
        let expiry = UInt64(max(0, min(expiresAt, RefreshTokenFormat.largestExpiry)))
        withUnsafeBytes(of: expiry.littleEndian) { bytes += $0.prefix(5) }
        bytes.append(bound ? 1 : 0)
        bytes += seed
        bytes += key.authenticationCode(for: bytes).prefix(RefreshTokenFormat.tagLength)
        return Base64URL.encode(bytes)
    }

    /// The fields of a token this key made; `nil` for anything else (a token of another issuer
    /// state, a forged or damaged one, or not one of ours at all).
    static func read(_ token: String, key: HMACSHA256Key) -> RefreshTokenFormat? {
        guard token.utf8.count == 43, let bytes = try? Base64URL.decode(token), bytes.count == 32 else {
            return nil
        }
        let tag = key.authenticationCode(for: Array(bytes[0..<16])).prefix(tagLength)
        guard ConstantTime.equals(Array(tag), Array(bytes[16..<32])) else { return nil }
        var familyID: UInt32 = 0
        for index in (0..<4).reversed() { familyID = familyID << 8 | UInt32(bytes[index]) }
        var expiry: Int64 = 0
        for index in (4..<9).reversed() { expiry = expiry << 8 | Int64(bytes[index]) }
        return RefreshTokenFormat(familyID: familyID, expiresAt: expiry, bound: bytes[9] & 1 == 1)
    }
}
