import Cryptography
import Testing

/// Decoding helpers for test vectors, kept independent of the module under test.
enum Decode {
    /// Bytes of a hex string; whitespace is ignored.
    static func hex(_ text: String) -> [UInt8] {
        let digits = text.filter { !$0.isWhitespace }.map { $0.hexDigitValue! }
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
    }

    /// Bytes of unpadded base64url (RFC 4648 §5), as JOSE uses it.
    static func base64URL(_ text: String) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var bits: UInt32 = 0
        var count = 0
        var output: [UInt8] = []
        for character in text {
            bits = bits << 6 | UInt32(alphabet.firstIndex(of: character)!)
            count += 6
            if count >= 8 {
                count -= 8
                output.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return output
    }
}

extension Array where Element == UInt8 {
    /// A copy with one bit of byte `index` flipped.
    func flippingBit(at index: Int) -> [UInt8] {
        var copy = self
        copy[index] ^= 0x01
        return copy
    }

    var hex: String {
        map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }
}

/// Runs `body` and returns the `CryptoError` it throws, or nil if it succeeds; any other error is an issue.
func cryptoError<T>(_ body: () throws -> T) -> CryptoError? {
    do {
        _ = try body()
        return nil
    } catch let error as CryptoError {
        return error
    } catch {
        Issue.record("expected a CryptoError, got \(error)")
        return nil
    }
}
