public import JOSE

/// The relying party's ID token checks (OpenID Connect Core §3.1.3.7, docs/sdk.md).
///
/// Pure: the key set and the time come in as parameters. Allowed algorithms are ES256, RS256
/// and PS256 only: never `none`, never an HMAC keyed with a public key.
public struct IDTokenVerifier: Sendable, Hashable {
    public static let allowedAlgorithms: Set<JWSAlgorithm> = [.es256, .rs256, .ps256]

    public var issuer: String
    public var clientID: String
    /// How far the device's clock may be off on `exp`, `nbf` and `iat` (`ClockTolerance`).
    public var clock: ClockTolerance
    /// Compare `iss` byte for byte instead of ignoring a trailing slash (field bug 15's fault).
    public var exactIssuerMatch: Bool
    /// Refuse an ID token without `at_hash` when an access token comes with it (the `strict`
    /// profile). OIDC Core §3.1.3.6 makes `at_hash` OPTIONAL in the code flow, so by default
    /// only one that is present is checked.
    public var requiresAccessTokenHash: Bool

    public init(
        issuer: String, clientID: String, clock: ClockTolerance = .standard,
        exactIssuerMatch: Bool = false, requiresAccessTokenHash: Bool = false
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clock = clock
        self.exactIssuerMatch = exactIssuerMatch
        self.requiresAccessTokenHash = requiresAccessTokenHash
    }

    /// Verifies signature, `iss`, `aud`/`azp`, `exp`, `iat` and, when given, `nonce`; then
    /// that the token binds the values of the response it came in: `at_hash` the
    /// `accessToken` (OIDC Core §3.1.3.8) and `c_hash` the `code` exchanged (§3.3.2.10), each
    /// checked when the token carries it.
    public func verify(
        _ idToken: String, keys: JWKCollection, nonce: String?, now: Int64, accessToken: String? = nil,
        code: String? = nil
    ) throws(JOSEError) -> JWTClaims {
        var validation = JWTValidation.idToken(
            issuer: issuer, clientID: clientID, nonce: nonce, now: now, leeway: clock.expiryLeeway)
        validation.issuedAtFutureTolerance = clock.issuedAtFuture
        validation.issuedAtPastTolerance = clock.issuedAtPast
        let verified = try JWT.verify(
            idToken, keys: keys, validation: validation, allowedAlgorithms: Self.allowedAlgorithms)
        if exactIssuerMatch, verified.claims.issuer != issuer {
            throw JOSEError(
                .issuerMismatch,
                "iss is \"\((verified.claims.issuer ?? "").prefix(200))\"; expected exactly \"\(issuer)\"")
        }
        // After the signature: only a genuine token's hashes say anything about the response.
        let algorithm = verified.header.algorithmName ?? ""
        try Self.check(
            .accessToken, binds: accessToken, in: verified.claims, algorithm: algorithm,
            required: requiresAccessTokenHash)
        try Self.check(.code, binds: code, in: verified.claims, algorithm: algorithm, required: false)
        return verified.claims
    }

    /// Checks that `claim` is the hash of `value` under the token's `alg` (OIDC Core
    /// §3.3.2.11), when the token carries it or it is `required`; without a value there is
    /// nothing to bind. Messages name the claim, never the values.
    private static func check(
        _ claim: HashClaim, binds value: String?, in claims: JWTClaims, algorithm: String, required: Bool
    ) throws(JOSEError) {
        guard let value else { return }
        let bound =
            switch claim {
            case .accessToken: "the access token of the response"
            case .code: "the authorization code exchanged"
            }
        guard let stated = claims[claim.rawValue] else {
            if required {
                throw JOSEError(
                    .tokenHashMismatch,
                    "the ID token has no \(claim.rawValue) for \(bound), and one is required")
            }
            return
        }
        guard stated.stringValue == (try HashClaim.leftHalfHash(of: value, algorithm: algorithm)) else {
            throw JOSEError(.tokenHashMismatch, "\(claim.rawValue) does not match \(bound)")
        }
    }
}
