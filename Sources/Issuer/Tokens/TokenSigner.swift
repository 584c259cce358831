import JOSE
import JSON

/// A signing key with the protected headers of the issuer's tokens encoded once: the token
/// endpoint signs two JWTs per request, and each used to build, serialise and encode the same
/// header again.
///
/// `sign` gives what `JWS.sign(payload:signer:extraHeader: ["typ": …])` gives, byte for byte
/// (the signature aside, which for ES256 and PS256 is randomised).
struct TokenSigner: Sendable {
    let signer: JWSSigner
    /// `BASE64URL(header)` of access tokens: `typ` `at+jwt` (RFC 9068 §2.1).
    let accessTokenHeader: [UInt8]
    /// `BASE64URL(header)` of ID tokens: `typ` `JWT`.
    let idTokenHeader: [UInt8]

    init(_ signer: JWSSigner) {
        self.signer = signer
        accessTokenHeader = TokenSigner.encodedHeader(signer, type: "at+jwt")
        idTokenHeader = TokenSigner.encodedHeader(signer, type: "JWT")
    }

    /// The compact JWS of `payload` under one of the headers above (RFC 7515 §7.1).
    func sign(payload: [UInt8], header: [UInt8]) throws(JOSEError) -> String {
        let payloadLength = Base64URL.encodedLength(payload.count)
        let inputLength = header.count + 1 + payloadLength
        let input = [UInt8](unsafeUninitializedCapacity: inputLength) { buffer, count in
            _ = buffer.initialize(fromContentsOf: header)
            buffer[header.count] = UInt8(ascii: ".")
            _ = payload.withUnsafeBytes {
                Base64URL.write(
                    $0, into: UnsafeMutableBufferPointer(rebasing: buffer[(header.count + 1)...]))
            }
            count = inputLength
        }
        let signature = try signer.sign(input)
        let signatureLength = Base64URL.encodedLength(signature.count)
        let tokenLength = input.count + 1 + signatureLength
        return String(unsafeUninitializedCapacity: tokenLength) { buffer in
            _ = buffer.initialize(fromContentsOf: input)
            buffer[input.count] = UInt8(ascii: ".")
            _ = signature.withUnsafeBytes {
                Base64URL.write(
                    $0, into: UnsafeMutableBufferPointer(rebasing: buffer[(input.count + 1)...]))
            }
            return tokenLength
        }
    }

    /// `alg` and `kid` from the signer, as `JWS.sign` sets them.
    private static func encodedHeader(_ signer: JWSSigner, type: String) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [
            ("alg", .string(signer.algorithm.rawValue)), ("typ", .string(type)),
        ]
        if let keyID = signer.keyID { members.append(("kid", .string(keyID))) }
        return Array(Base64URL.encode(JSONValue.serializedObject(members)).utf8)
    }
}
