import Cryptography
import JOSE

/// How the simulator spells Apple's identifiers: user ids, relay addresses, codes and tokens.
enum AppleIdentifiers {
    /// The account key: emails are compared case-insensitively.
    static func accountKey(_ email: String) -> String { email.lowercased() }

    /// The stable `sub` of an account for a developer team, shaped like Apple's
    /// `001234.0123456789abcdef0123456789abcdef.1234`: six digits, 32 hex digits, four digits.
    ///
    /// Derived, not drawn: the same account and team give the same id in every run and every
    /// provider, as Apple's ids never change, and different teams get unrelated ids.
    static func subject(email: String, teamID: String) -> String {
        let digest = derive("sub", email: email, teamID: teamID)
        let head = (Int(digest[0]) << 16 | Int(digest[1]) << 8 | Int(digest[2])) % 1_000_000
        let tail = (Int(digest[19]) << 8 | Int(digest[20])) % 10_000
        return padded(head, width: 6) + "." + hex(Array(digest[3..<19])) + "." + padded(tail, width: 4)
    }

    /// The private relay address of an account for a developer team: ten lowercase letters and
    /// digits at `privaterelay.appleid.com`, stable per team like Apple's.
    static func relayAddress(email: String, teamID: String) -> String {
        let digest = derive("relay", email: email, teamID: teamID)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let local = String(digest.prefix(10).map { alphabet[Int($0) % alphabet.count] })
        return local + "@" + relayDomain
    }

    static let relayDomain = "privaterelay.appleid.com"

    /// A fresh code or token shaped like Apple's: a kind letter (`c` code, `r` refresh, `a`
    /// access), 32 hex digits, `.0.`, four letters, `.`, 22 base64url characters: 256 random bits.
    static func token(kind: Character, random: any RandomSource) -> String {
        let bytes = random.bytes(count: 36)
        let letters = bytes[16..<20].map { Character(Unicode.Scalar(UInt8(ascii: "a") + $0 % 26)) }
        return String(kind) + hex(Array(bytes[0..<16])) + ".0." + String(letters) + "."
            + Base64URL.encode(Array(bytes[20..<36]))
    }

    /// How codes and tokens are stored: SHA-256, base64url.
    static func storageKey(_ secret: String) -> String { Base64URL.encode(SHA256.hash(secret)) }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    private static func derive(_ purpose: String, email: String, teamID: String) -> [UInt8] {
        var input = Array("signinsim/apple/\(purpose)".utf8)
        input.append(0)
        input.append(contentsOf: accountKey(email).utf8)
        input.append(0)
        input.append(contentsOf: teamID.utf8)
        return SHA256.hash(input)
    }

    private static func padded(_ value: Int, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
