import Cryptography
import JOSE
import Testing

@testable import Issuer

@Suite("Refresh token format")
struct RefreshTokenFormatTests {
    /// A token reads back as it was made, is 43 characters, and names nothing under another
    /// key or with any byte changed.
    @Test("round trip, other key, tampering")
    func roundTrip() throws {
        let key = HMACSHA256Key(Array(repeating: 7, count: 32))
        let fields = RefreshTokenFormat(familyID: 0xDEAD_BEEF, expiresAt: 1_800_000_000, bound: true)
        let token = fields.token(seed: [1, 2, 3, 4, 5, 6], key: key)
        #expect(token.utf8.count == 43)
        let read = try #require(RefreshTokenFormat.read(token, key: key))
        #expect(read.familyID == 0xDEAD_BEEF && read.expiresAt == 1_800_000_000 && read.bound)
        #expect(RefreshTokenFormat.read(token, key: HMACSHA256Key(Array(repeating: 8, count: 32))) == nil)
        let bytes = try Base64URL.decode(token)
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x10
            #expect(RefreshTokenFormat.read(Base64URL.encode(changed), key: key) == nil)
        }
        #expect(RefreshTokenFormat.read("not-a-token", key: key) == nil)
        // Another seed, another token; an expiry past 40 bits is clamped.
        #expect(fields.token(seed: [1, 2, 3, 4, 5, 7], key: key) != token)
        let far = RefreshTokenFormat(familyID: 1, expiresAt: .max, bound: false).token(
            seed: [0, 0, 0, 0, 0, 0], key: key)
        #expect(RefreshTokenFormat.read(far, key: key)?.expiresAt == (1 << 40) - 1)
    }
}
