import Cryptography
import Testing

@Suite("SHA-2, HMAC-SHA256 and constant-time comparison")
struct HashTests {
    /// SHA-256 of "abc" is the FIPS 180-2 Appendix B.1 digest.
    @Test("SHA-256 of \"abc\" matches FIPS 180")
    func sha256ABC() {
        let expected = Decode.hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash("abc") == expected)
        #expect(SHA256.hash(Array("abc".utf8)) == expected)
    }

    /// The empty input and a two-block message hash to their FIPS 180 digests.
    @Test("SHA-256 of empty and two-block inputs match FIPS 180")
    func sha256MoreVectors() {
        #expect(
            SHA256.hash([]) == Decode.hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        #expect(
            SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == Decode.hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"))
        #expect(SHA256.digestSize == 32)
    }

    /// SHA-384 and SHA-512 of "abc" are the FIPS 180-2 Appendix D.1 and C.1 digests; SHA2's
    /// SHA-256 is `SHA256`'s.
    @Test("SHA-384 and SHA-512 of \"abc\" match FIPS 180")
    func sha384And512ABC() {
        #expect(
            SHA2.sha384.hash("abc")
                == Decode.hex(
                    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
                ))
        #expect(
            SHA2.sha512.hash(Array("abc".utf8))
                == Decode.hex(
                    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
                ))
        #expect(SHA2.sha256.hash("abc") == SHA256.hash("abc"))
        #expect(SHA2.allCases.map(\.digestSize) == [32, 48, 64])
    }

    /// RFC 4231 test case 1: 20-byte key of 0x0b, data "Hi There".
    @Test("HMAC-SHA256 RFC 4231 test case 1")
    func hmacCase1() {
        let key = [UInt8](repeating: 0x0B, count: 20)
        let expected = Decode.hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: key) == expected)
    }

    /// RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    @Test("HMAC-SHA256 RFC 4231 test case 2")
    func hmacCase2() {
        let message = Array("what do ya want for nothing?".utf8)
        let expected = Decode.hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMACSHA256.authenticationCode(for: message, key: Array("Jefe".utf8)) == expected)
    }

    /// An empty key and an empty message are accepted and give the well-known HMAC of nothing.
    @Test("HMAC-SHA256 with an empty key and message")
    func hmacEmpty() {
        let expected = Decode.hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        #expect(HMACSHA256.authenticationCode(for: [], key: []) == expected)
    }

    /// isValid accepts the right code and rejects a flipped bit, a truncated code and the wrong key.
    @Test("HMAC-SHA256 validation")
    func hmacValidation() {
        let key = Array("Jefe".utf8)
        let message = Array("what do ya want for nothing?".utf8)
        let code = HMACSHA256.authenticationCode(for: message, key: key)
        #expect(HMACSHA256.isValid(code, for: message, key: key))
        #expect(!HMACSHA256.isValid(code.flippingBit(at: 31), for: message, key: key))
        #expect(!HMACSHA256.isValid(Array(code.prefix(16)), for: message, key: key))
        #expect(!HMACSHA256.isValid(code, for: message, key: Array("jefe".utf8)))
        #expect(!HMACSHA256.isValid([], for: message, key: key))
    }

    /// Equal arrays compare equal; a difference in any byte or in length does not.
    @Test("ConstantTime.equals")
    func constantTimeEquals() {
        let a: [UInt8] = [1, 2, 3, 4]
        #expect(ConstantTime.equals(a, [1, 2, 3, 4]))
        #expect(ConstantTime.equals([], []))
        #expect(!ConstantTime.equals(a, [1, 2, 3, 5]))
        #expect(!ConstantTime.equals(a, [0, 2, 3, 4]))
        #expect(!ConstantTime.equals(a, [1, 2, 3]))
        #expect(!ConstantTime.equals(a, []))
    }
}
