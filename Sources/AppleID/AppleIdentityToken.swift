public import JOSE
public import JSON

/// The claims of a verified Apple identity token, typed (docs/issuer.md, "The simulated Apple").
///
/// Booleans are read from JSON booleans or from the strings `"true"` / `"false"`: Apple has
/// sent both.
public struct AppleIdentityClaims: Sendable, Hashable {
    /// `sub`: the user id, stable per developer team.
    public var subject: String
    /// `aud`: the client id the token was checked for (the bundle id for native apps).
    public var audience: String
    public var issuedAt: Int64
    public var expiresAt: Int64
    public var authTime: Int64?
    /// `nonce`: `SHA256(rawNonce)` in lowercase hex, when the app sent one.
    public var nonce: String?
    public var nonceSupported: Bool?
    /// The real or private relay address, when the user shared one.
    public var email: String?
    public var emailVerified: Bool?
    public var isPrivateEmail: Bool?
    public var realUserStatus: AppleRealUserStatus?
    /// `transfer_sub`, present for users of an app that moved to another team.
    public var transferSubject: String?
    /// The `kid` of the key that verified the token.
    public var keyID: String?
    /// Every claim, as sent.
    public var claims: JWTClaims
}

/// Verifying Apple identity tokens, as an app's server (or an issuer redeeming Apple codes) does.
public enum AppleIdentityToken {
    /// Verifies an identity token against Apple's JWK Set (`/auth/keys`).
    ///
    /// Checks: the signature is RS256 by the key named by `kid` (any other algorithm is
    /// refused); `iss` is `https://appleid.apple.com`; `aud` contains `audience`; `exp` has not
    /// passed (with `leeway`); `iat` and `sub` are present; when `expectedNonceHash` is given,
    /// `nonce` equals it exactly (pass `AppleNonce.sha256Hex(rawNonce)`); the Apple claims have
    /// their types. An unknown `kid` throws `unknownKey`: fetch the keys again and retry once
    /// (`AppleKeyFetcher` does).
    public static func verify(
        _ token: String, keys: JWKSet, audience: String, now: Int64, expectedNonceHash: String?,
        leeway: Int64 = 0
    ) throws(JOSEError) -> AppleIdentityClaims {
        try verify(
            token, keys: JWKCollection(keys), audience: audience, now: now,
            expectedNonceHash: expectedNonceHash,
            leeway: leeway)
    }

    /// The same, with keys already decoded (verifying many tokens with one set).
    public static func verify(
        _ token: String, keys: JWKCollection, audience: String, now: Int64, expectedNonceHash: String?,
        leeway: Int64 = 0
    ) throws(JOSEError) -> AppleIdentityClaims {
        let validation = JWTValidation(
            now: now, leeway: leeway, issuer: AppleIDProvider.issuer, audience: audience,
            nonce: expectedNonceHash, requireIssuedAt: true, requireSubject: true)
        let verified = try JWT.verify(token, keys: keys, validation: validation, allowedAlgorithms: [.rs256])
        let claims = verified.claims
        // The exact issuer: JWTValidation forgives a trailing slash, Apple's constant has none.
        guard claims.issuer == AppleIDProvider.issuer else {
            throw JOSEError(.issuerMismatch, "iss is not exactly \"\(AppleIDProvider.issuer)\"")
        }
        guard let subject = claims.subject, let issuedAt = claims.issuedAt, let expiresAt = claims.expiresAt
        else { throw JOSEError(.missingClaim, "the token lacks sub, iat or exp") }
        let other = claims.otherClaims
        var realUserStatus: AppleRealUserStatus?
        if let value = other["real_user_status"] {
            guard let number = value.int64Value, let status = AppleRealUserStatus(rawValue: Int(number))
            else {
                throw JOSEError(.invalidClaim, "real_user_status must be 0, 1 or 2")
            }
            realUserStatus = status
        }
        return AppleIdentityClaims(
            subject: subject, audience: audience, issuedAt: issuedAt, expiresAt: expiresAt,
            authTime: try integer(other["auth_time"], "auth_time"), nonce: claims.nonce,
            nonceSupported: try boolean(other["nonce_supported"], "nonce_supported"),
            email: try string(other["email"], "email"),
            emailVerified: try boolean(other["email_verified"], "email_verified"),
            isPrivateEmail: try boolean(other["is_private_email"], "is_private_email"),
            realUserStatus: realUserStatus,
            transferSubject: try string(other["transfer_sub"], "transfer_sub"),
            keyID: verified.keyID, claims: claims)
    }

    /// A boolean claim written as a JSON boolean or as the string `"true"` / `"false"`.
    public static func boolean(_ value: JSONValue?, _ name: String) throws(JOSEError) -> Bool? {
        switch value {
        case nil: return nil
        case .bool(let flag)?: return flag
        case .string("true")?: return true
        case .string("false")?: return false
        case let other?:
            throw JOSEError(
                .invalidClaim, "\(name) must be a boolean or \"true\"/\"false\", not a \(other.typeName)")
        }
    }

    private static func string(_ value: JSONValue?, _ name: String) throws(JOSEError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else { throw JOSEError(.invalidClaim, "\(name) must be a string") }
        return text
    }

    private static func integer(_ value: JSONValue?, _ name: String) throws(JOSEError) -> Int64? {
        guard let value else { return nil }
        guard let number = value.int64Value else {
            throw JOSEError(.invalidClaim, "\(name) must be an integer")
        }
        return number
    }
}
