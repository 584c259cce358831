import HTTPCore
import JOSE
import JSON
import Locking
import OAuthCore

/// An access token of this issuer whose signature and claims were checked (RFC 9068 §4).
struct VerifiedAccessToken: Sendable {
    /// `jti`, what revocation records.
    var id: String
    var subject: String
    var clientID: String?
    var audience: Audience?
    var scopes: [String]
    var expiresAt: Int64
    /// `cnf.jkt`: the DPoP key the token is bound to (RFC 9449 §6.1).
    var thumbprint: String?
}

/// The issuer's public keys decoded into a `JWKCollection`, rebuilt only when the key ring
/// changes, so that checking an access token does not re-import keys.
final class VerificationKeyCache: Sendable {
    private let cached = Mutex<(keyIDs: [String?], keys: JWKCollection)?>(nil)

    func keys(for ring: SigningKeyRing) -> JWKCollection {
        let keyIDs = [ring.active.keyID] + ring.retired.map(\.keyID)
        if let hit = cached.withLock({ $0 }), hit.keyIDs == keyIDs { return hit.keys }
        let keys = JWKCollection(ring.publicKeySet)
        cached.withLock { $0 = (keyIDs, keys) }
        return keys
    }
}

extension Issuer {
    /// Checks that an access token is one of ours: `typ` `at+jwt`, a signature by the active or
    /// a retired key, our `iss`, a `jti` and a `sub`, and, when `now` is given, not expired
    /// (no leeway: the issuer's own clock judges its own tokens).
    /// - Throws: 401 `invalid_token` with a challenge of `scheme` (RFC 6750 §3.1).
    func verifyAccessToken(_ token: String, now: Int64?, scheme: String = "Bearer") throws(OAuthError)
        -> VerifiedAccessToken
    {
        let ring = state.withLock { $0.keys }
        let claims: JWTClaims
        do throws(JOSEError) {
            let jws = try JWS.parse(token)
            guard let type = jws.header.type, type.caseInsensitiveEquals("at+jwt") else {
                throw JOSEError(.malformedHeader, "it is not an access token (typ at+jwt, RFC 9068 §4)")
            }
            try jws.verify(with: verificationKeys.keys(for: ring))
            claims = try JWTClaims(json: try jws.payloadObject())
            if let now {
                try claims.validate(JWTValidation(now: now, issuer: identifier))
            } else if claims.issuer != identifier {
                throw JOSEError(.issuerMismatch, "it was not issued here")
            }
        } catch {
            throw .invalidToken("the access token is not valid: \(error.message)", scheme: scheme)
        }
        guard let id = claims.jwtID, let subject = claims.subject, let expiresAt = claims.expiresAt else {
            throw .invalidToken("the access token lacks jti, sub or exp", scheme: scheme)
        }
        return VerifiedAccessToken(
            id: id, subject: subject, clientID: claims.otherClaims["client_id"]?.stringValue,
            audience: claims.audience,
            scopes: claims.otherClaims["scope"]?.stringValue.map(ScopeList.parse) ?? [],
            expiresAt: expiresAt, thumbprint: claims.otherClaims["cnf"]?["jkt"]?.stringValue)
    }

    /// A `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9449 §7.1); quotes, backslashes and
    /// control characters in values are replaced so the header stays well formed.
    static func challenge(_ scheme: String, _ parameters: KeyValuePairs<String, String?>) -> String {
        var text = scheme
        var first = true
        for (name, value) in parameters {
            guard let value else { continue }
            let safe = String(
                value.unicodeScalars.prefix(300).map {
                    $0 == "\"" || $0 == "\\"
                        ? "'" : ($0.value < 0x20 || $0.value == 0x7F ? " " : Character($0))
                })
            text += (first ? " " : ", ") + name + "=\"" + safe + "\""
            first = false
        }
        return text
    }

    /// The DPoP algorithms a resource accepts, for `algs` in DPoP challenges (RFC 9449 §7.1).
    static let dpopAlgorithms = JWSAlgorithm.allCases.map(\.rawValue).joined(separator: " ")
}
