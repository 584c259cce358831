public import Cryptography
public import JOSE
import JSON

/// The client secret of Apple's token endpoint: a JWT the developer signs ES256 with a key
/// registered for the team (docs/issuer.md, "The simulated Apple").
///
/// Header `alg` ES256 and `kid` the key id; claims `iss` the team id, `sub` the client id (the
/// bundle id for native codes), `aud` `https://appleid.apple.com`, `iat`, and `exp` at most
/// 15,777,000 seconds after `iat`.
public enum AppleClientSecret {
    /// The `aud` every client secret must carry.
    public static let audience = AppleIDProvider.issuer

    /// Signs a client secret, as a developer's server does before calling `/auth/token`.
    ///
    /// - Parameters:
    ///   - issuedAt: `iat`, seconds since the epoch (take it from the caller's clock).
    ///   - lifetime: `exp` − `iat`; Apple refuses more than 15,777,000.
    public static func make(
        teamID: String, keyID: String, clientID: String, privateKey: P256PrivateKey, issuedAt: Int64,
        lifetime: Int64 = 3600
    ) throws(JOSEError) -> String {
        let signer = try JWSSigner(key: .p256(privateKey), algorithm: .es256, keyID: keyID)
        let claims = JWTClaims(
            issuer: teamID, subject: clientID, audience: .single(audience), expiresAt: issuedAt + lifetime,
            issuedAt: issuedAt)
        return try JWS.sign(payload: claims.json.serialized(), signer: signer)
    }

    /// Checks a client secret for `clientID` and returns the team that signed it.
    ///
    /// The signature is checked before the claims, so that claim errors are only reported for
    /// secrets the key holder made. The reason is for people (the `X-SignInSim-Reason` header);
    /// Apple answers every failure the same: `invalid_client`.
    static func verify(
        _ secret: String, clientID: String, now: Int64, maximumLifetime: Int64, leeway: Int64,
        developerKey: (_ teamID: String, _ keyID: String) -> P256PublicKey?
    ) throws(AppleEndpointError) -> String {
        let jws: JWS
        do {
            jws = try JWS.parse(secret)
        } catch {
            throw .invalidClient("client_secret is not a JWS: \(error.message)")
        }
        guard let algorithm = jws.header.algorithmName, algorithm == JWSAlgorithm.es256.rawValue else {
            let name = jws.header.algorithmName.map { "\($0.prefix(16))" } ?? "missing"
            throw .invalidClient("client_secret alg is \(name); Apple requires ES256")
        }
        guard let keyID = jws.header.keyID, !keyID.isEmpty else {
            throw .invalidClient("client_secret header has no kid (the developer key id)")
        }
        let claims: JWTClaims
        do {
            claims = try JWTClaims(json: try jws.payloadObject())
        } catch {
            throw .invalidClient("client_secret claims are malformed: \(error.message)")
        }
        guard let teamID = claims.issuer, !teamID.isEmpty else {
            throw .invalidClient("client_secret has no iss (the team id)")
        }
        guard let publicKey = developerKey(teamID, keyID) else {
            throw .invalidClient(
                "no developer key \"\(keyID.prefix(32))\" is registered for team \"\(teamID.prefix(32))\"")
        }
        do {
            try jws.verify(with: .p256(publicKey))
        } catch {
            throw .invalidClient("client_secret signature does not verify with developer key \(keyID)")
        }
        guard claims.subject == clientID else {
            throw .invalidClient(
                "client_secret sub is \(quoted(claims.subject)); expected the client_id \"\(clientID)\"")
        }
        guard claims.audience == .single(audience) || claims.audience == .multiple([audience]) else {
            let actual = claims.audience.map { "\($0.values.prefix(3))" } ?? "missing"
            throw .invalidClient("client_secret aud is \(actual.prefix(200)); expected \"\(audience)\"")
        }
        guard let issuedAt = claims.issuedAt else { throw .invalidClient("client_secret has no iat") }
        guard issuedAt <= now + leeway else {
            throw .invalidClient("client_secret iat \(issuedAt) is in the future; now is \(now)")
        }
        guard let expiresAt = claims.expiresAt else { throw .invalidClient("client_secret has no exp") }
        guard now < expiresAt else {
            throw .invalidClient("client_secret expired at \(expiresAt); now is \(now)")
        }
        guard expiresAt - issuedAt <= maximumLifetime else {
            throw .invalidClient(
                "client_secret lifetime (exp - iat) is \(expiresAt - issuedAt) s; the limit is \(maximumLifetime) s"
            )
        }
        return teamID
    }

    private static func quoted(_ value: String?) -> String {
        value.map { "\"\($0.prefix(200))\"" } ?? "missing"
    }
}
