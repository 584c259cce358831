public import JOSE

/// The relying party's ID token checks (OpenID Connect Core §3.1.3.7, protocols.md §3).
///
/// Pure: the key set and the time come in as parameters. Allowed algorithms are ES256, RS256
/// and PS256 only: never `none`, never an HMAC keyed with a public key.
public struct IDTokenVerifier: Sendable, Hashable {
    public static let allowedAlgorithms: Set<JWSAlgorithm> = [.es256, .rs256, .ps256]

    public var issuer: String
    public var clientID: String
    /// Seconds of tolerance on `exp` (Auth0.swift 60, AppAuth 0).
    public var leeway: Int64
    /// Seconds `iat` may lie in the future (AppAuth 600).
    public var issuedAtTolerance: Int64
    /// Compare `iss` byte for byte instead of ignoring a trailing slash (field bug 15's fault).
    public var exactIssuerMatch: Bool

    public init(
        issuer: String, clientID: String, leeway: Int64, issuedAtTolerance: Int64,
        exactIssuerMatch: Bool = false
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.leeway = leeway
        self.issuedAtTolerance = issuedAtTolerance
        self.exactIssuerMatch = exactIssuerMatch
    }

    /// Verifies signature, `iss`, `aud`/`azp`, `exp`, `iat` and, when given, `nonce`.
    public func verify(_ idToken: String, keys: JWKCollection, nonce: String?, now: Int64) throws(JOSEError)
        -> JWTClaims
    {
        var validation = JWTValidation.idToken(
            issuer: issuer, clientID: clientID, nonce: nonce, now: now, leeway: leeway)
        validation.issuedAtFutureTolerance = issuedAtTolerance
        let verified = try JWT.verify(
            idToken, keys: keys, validation: validation, allowedAlgorithms: Self.allowedAlgorithms)
        if exactIssuerMatch, verified.claims.issuer != issuer {
            throw JOSEError(
                .issuerMismatch,
                "iss is \"\((verified.claims.issuer ?? "").prefix(200))\"; expected exactly \"\(issuer)\"")
        }
        return verified.claims
    }
}
