public import JSON

/// JSON Web Tokens (RFC 7519) signed as compact JWS.
public enum JWT {
    /// A token whose signature and claims were checked.
    public struct Verified: Sendable, Hashable {
        public let header: JWSHeader
        public let claims: JWTClaims
        /// The `kid` of the key that verified it.
        public let keyID: String?
    }

    /// Signs claims. The header gets `typ: JWT` unless `extraHeader` sets another.
    public static func sign(
        _ claims: JWTClaims, signer: JWSSigner, extraHeader: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        var header = extraHeader
        if header["typ"] == nil { header["typ"] = "JWT" }
        return try JWS.sign(payload: claims.json.serialized(), signer: signer, extraHeader: header)
    }

    /// Verifies the signature with the key collection, then the claims.
    ///
    /// The signature is checked first so that claim errors are only ever reported for
    /// genuine tokens.
    public static func verify(
        _ token: String, keys: JWKCollection, validation: JWTValidation,
        allowedAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases)
    ) throws(JOSEError) -> Verified {
        let jws = try JWS.parse(token)
        let entry = try jws.verify(with: keys, allowedAlgorithms: allowedAlgorithms)
        let claims = try JWTClaims(json: try jws.payloadObject())
        try claims.validate(validation)
        return Verified(header: jws.header, claims: claims, keyID: entry.jwk.keyID)
    }

    /// Decodes header and claims without verifying anything: for display only.
    public static func decodeUnverified(_ token: String) throws(JOSEError) -> (
        header: JSONValue, claims: JSONValue
    ) {
        let jws = try JWS.parse(token)
        return (.object(jws.header.members), .object(try jws.payloadObject()))
    }
}
