import Cryptography
import Testing

@Suite("Random sources")
struct RandomTests {
    /// Two SeededRandom instances with the same seed produce the same bytes.
    @Test("SeededRandom: same seed, same stream")
    func sameSeed() {
        let a = SeededRandom(seed: 42)
        let b = SeededRandom(seed: 42)
        #expect(a.bytes(count: 100) == b.bytes(count: 100))
        #expect(a.bytes(count: 7) == b.bytes(count: 7))
    }

    /// Different seeds give different streams, and successive calls continue the stream.
    @Test("SeededRandom: different seeds differ")
    func differentSeeds() {
        let a = SeededRandom(seed: 1)
        #expect(a.bytes(count: 32) != SeededRandom(seed: 2).bytes(count: 32))
        #expect(a.bytes(count: 32) != SeededRandom(seed: 1).bytes(count: 32))
    }

    /// The stream is the documented construction: HMAC-SHA256(key: seed BE, message: counter BE).
    @Test("SeededRandom follows its documented construction")
    func construction() {
        let seed: UInt64 = 0x0102_0304_0506_0708
        let key = Decode.hex("0102030405060708")
        let block0 = HMACSHA256.authenticationCode(for: Decode.hex("0000000000000000"), key: key)
        let block1 = HMACSHA256.authenticationCode(for: Decode.hex("0000000000000001"), key: key)
        #expect(SeededRandom(seed: seed).bytes(count: 64) == block0 + block1)
        // Independent of the implementation: `openssl dgst -sha256 -mac HMAC -macopt hexkey:0000000000000000` over 8 zero bytes.
        #expect(
            SeededRandom(seed: 0).bytes(count: 32)
                == Decode.hex("f375180aba92888401f1919be4a8715a62763b65c1c10e1d0858e81d4d6f9fd2"))
    }

    /// How requests are split does not change the bytes returned.
    @Test("SeededRandom: output independent of request sizes")
    func splitIndependent() {
        let whole = SeededRandom(seed: 7).bytes(count: 100)
        let split = SeededRandom(seed: 7)
        let parts =
            split.bytes(count: 10) + split.bytes(count: 0) + split.bytes(count: 40) + split.bytes(count: 50)
        #expect(parts == whole)
    }

    /// Concurrent callers each get a distinct part of the one stream, and together all of it.
    @Test("SeededRandom is safe to share between tasks")
    func concurrent() async {
        let random = SeededRandom(seed: 9)
        let chunks = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 {
                group.addTask { random.bytes(count: 32) }
            }
            return await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        let stream = SeededRandom(seed: 9).bytes(count: 256)
        let blocks = stride(from: 0, to: 256, by: 32).map { Array(stream[$0..<$0 + 32]) }
        #expect(Set(chunks) == Set(blocks))
    }

    /// SystemRandom returns exactly the requested number of bytes, and two draws differ.
    @Test("SystemRandom returns the count asked for and varies")
    func systemRandom() {
        let random = SystemRandom()
        #expect(random.bytes(count: 0).isEmpty)
        #expect(random.bytes(count: 1).count == 1)
        let a = random.bytes(count: 32)
        let b = random.bytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
    }
}
