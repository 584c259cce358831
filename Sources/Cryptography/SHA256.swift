/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// Length of a SHA-256 digest in bytes.
    public static let digestSize = 32

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { hash($0) }
    }

    /// The SHA-256 digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    static func hash(_ data: UnsafeRawBufferPointer) -> [UInt8] { SHA2.sha256.hash(data) }

    /// Writes the digest of `data` into the first 32 bytes of `output`.
    static func digest(_ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        SHA2.sha256.digest(data, into: output)
    }

    /// Calls `body` with the digest of `message` in a stack buffer, avoiding a heap allocation.
    static func withDigest<R>(of message: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: digestSize, alignment: 1) { buffer in
            message.withUnsafeBytes { digest($0, into: buffer) }
            return body(UnsafeRawBufferPointer(buffer))
        }
    }
}
