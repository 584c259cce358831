public import JOSE
import JSON

/// The JWT a client signs with its private key to authenticate at the token endpoint:
/// `private_key_jwt` (RFC 7523 §2.2 and §3, OpenID Connect Core §9).
///
/// `make` is the client half; `claimedClient` and `verify` are the stateless server checks.
/// Whether a `jti` was seen before is for whoever keeps the state (the issuer).
///
/// The audience is one value, the authorization server's issuer identifier or its token
/// endpoint URL. RFC 7523 §3 and OpenID Connect Core §9 allow (and the latter recommends) the
/// token endpoint; draft-ietf-oauth-rfc7523bis §2 (2025, after the "audience injection"
/// attacks) requires the issuer identifier as the only audience. Providers differ, so a client
/// chooses (`Audience`), and a server here accepts either, but only alone.
public struct ClientAssertion: Sendable, Hashable {
    /// `client_assertion_type` (RFC 7523 §2.2).
    public static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How long an assertion the SDK makes is valid: five minutes from `iat`.
    public static let defaultLifetime: Int64 = 300
    /// The longest `exp` accepted, counted from now: an assertion is for one request, and its
    /// `jti` must be remembered until it expires.
    public static let maximumLifetime: Int64 = 3600
    /// Longest assertion `verify` reads; a JWT with one signature and six claims is far shorter.
    public static let maximumLength = 16 * 1024
    /// Longest `jti` accepted.
    public static let maximumIDLength = 256

    /// What the client puts in `aud`.
    public enum Audience: String, Sendable, Hashable, CaseIterable {
        /// The issuer identifier from discovery (draft-ietf-oauth-rfc7523bis §2; what Auth0
        /// asks for).
        case issuer
        /// The token endpoint URL (OpenID Connect Core §9's SHOULD), for providers that
        /// still require it.
        case tokenEndpoint = "token_endpoint"
    }

    /// `iss` and `sub`: the client.
    public let clientID: String
    /// `jti`.
    public let id: String
    /// `exp`.
    public let expiresAt: Int64

    // MARK: - Building (client side)

    /// A signed assertion: `iss` and `sub` the client id, `aud` the one audience, `iat` now,
    /// `exp` `lifetime` seconds later, `jti` the given unique id. The header names the key's
    /// `kid` when it has one, so that a server holding several keys of the client finds it.
    public static func make(
        signer: JWSSigner, clientID: String, audience: String, issuedAt: Int64,
        lifetime: Int64 = defaultLifetime, id: String
    ) throws(JOSEError) -> String {
        let claims = JWTClaims(
            issuer: clientID, subject: clientID, audience: .single(audience), expiresAt: issuedAt + lifetime,
            issuedAt: issuedAt, jwtID: id)
        return try JWT.sign(claims, signer: signer)
    }

    // MARK: - Checking (server side)

    /// The client an assertion says it comes from, read without verifying anything, so that
    /// the server can find that client's keys. `iss` and `sub` must both be the client id
    /// (RFC 7523 §3 items 1 and 2.B).
    /// - Throws: `invalid_client` (401) naming the problem.
    public static func claimedClient(_ assertion: String) throws(OAuthError) -> String {
        let claims = try unverifiedClaims(assertion)
        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else {
            throw .invalidClient("the client_assertion has no iss (RFC 7523 §3: it must be the client id)")
        }
        guard let subject = claims["sub"]?.stringValue, subject == issuer else {
            throw .invalidClient(
                "the client_assertion's sub must equal its iss, the client id (RFC 7523 §3)")
        }
        return issuer
    }

    /// Verifies an assertion of `clientID` against the client's registered public keys: the
    /// signature first (an asymmetric algorithm only), then `iss` = `sub` = `clientID`, one
    /// `aud` among `audiences` compared byte for byte (RFC 3986 §6.2.1), `exp` present and not
    /// passed, no later than `maximumLifetime` from now, `nbf` and `iat` not in the future
    /// (each with `leeway` seconds of clock skew), and a `jti` (OpenID Connect Core §9).
    /// - Throws: `invalid_client` (401) naming the first problem.
    public static func verify(
        _ assertion: String, clientID: String, keys: JWKCollection, audiences: [String], now: Int64,
        leeway: Int64 = 60
    ) throws(OAuthError) -> ClientAssertion {
        guard assertion.utf8.count <= maximumLength else {
            throw .invalidClient("the client_assertion is longer than \(maximumLength) bytes")
        }
        let jws: JWS
        do {
            jws = try JWS.parse(assertion)
            _ = try jws.verify(with: keys)
        } catch {
            throw .invalidClient(
                "the client_assertion does not verify with the keys registered for \(clientID): \(error.message)"
            )
        }
        let claims: JWTClaims
        do {
            claims = try JWTClaims(json: try jws.payloadObject())
            try claims.validate(JWTValidation(now: now, leeway: leeway))
        } catch {
            throw .invalidClient("the client_assertion is refused: \(error.message)")
        }
        guard claims.issuer == clientID, claims.subject == clientID else {
            throw .invalidClient(
                "the client_assertion's iss and sub must both be the client id \(clientID) (RFC 7523 §3)")
        }
        guard let audience = claims.audience else {
            throw .invalidClient("the client_assertion has no aud")
        }
        let named = audience.values
        guard named.count == 1, let only = named.first, audiences.contains(only) else {
            let expected = audiences.map { "\"\($0)\"" }.joined(separator: " or ")
            throw .invalidClient(
                "the client_assertion's aud must be \(expected) alone (draft-ietf-oauth-rfc7523bis §2); "
                    + "it names \(named.prefix(3).map { "\"\($0.prefix(200))\"" }.joined(separator: ", "))")
        }
        // `validate` required exp.
        let expiresAt = claims.expiresAt ?? now
        guard expiresAt - now <= maximumLifetime + leeway else {
            throw .invalidClient(
                "the client_assertion expires \(expiresAt - now) s from now; at most \(maximumLifetime) s is accepted"
            )
        }
        guard let id = claims.jwtID, !id.isEmpty, id.utf8.count <= maximumIDLength else {
            throw .invalidClient(
                "the client_assertion needs a jti of 1 to \(maximumIDLength) bytes (OpenID Connect Core §9)")
        }
        return ClientAssertion(clientID: clientID, id: id, expiresAt: expiresAt)
    }

    private static func unverifiedClaims(_ assertion: String) throws(OAuthError) -> [String: JSONValue] {
        guard !assertion.isEmpty, assertion.utf8.count <= maximumLength else {
            throw .invalidClient("the client_assertion is empty or longer than \(maximumLength) bytes")
        }
        do {
            return try JWS.parse(assertion).payloadObject()
        } catch {
            throw .invalidClient("the client_assertion is not a signed JWT: \(error.message)")
        }
    }
}
