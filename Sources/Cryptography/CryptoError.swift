public import Errors

/// The one error type of the Cryptography module: a stable code and a precise message.
///
/// Messages name what was wrong (a length, a label, a curve) and never contain key material,
/// signatures or messages, so they are safe to log.
public struct CryptoError: CodedError {
    /// Stable, machine-readable reason for the failure.
    public enum Code: String, Sendable, Hashable {
        /// Key material is malformed, inconsistent, of the wrong type or outside the accepted range.
        case invalidKey
        /// Text is not PEM, or its PEM structure (labels, base64, DER) is broken.
        case invalidPEM
        /// An argument other than a key is out of range.
        case invalidInput
        /// OpenSSL could not generate a key.
        case keyGenerationFailed
        /// OpenSSL could not produce a signature.
        case signingFailed
        /// The random source failed.
        case randomFailed
        /// Well-formed input that this module deliberately does not handle (encrypted PEM, other curves).
        case unsupported
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
