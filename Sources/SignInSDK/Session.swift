public import JOSE
public import JSON

/// The credentials of a signed-in user, as the SDK stores and returns them.
public struct Session: Sendable, Hashable {
    public var accessToken: String
    /// `Bearer`, or `DPoP` for sender-constrained tokens (RFC 9449 §5).
    public var tokenType: String
    public var idToken: String
    public var refreshToken: String?
    /// Device time (seconds) at which the access token expires.
    public var expiresAt: Int64
    /// The granted scope (RFC 6749 §5.1), or the requested one when the issuer did not say.
    public var scope: String?
    /// The ID token's claims, verified when the session was stored.
    public var claims: JWTClaims
    /// The Apple user identifier (`ASAuthorizationAppleIDCredential.user`) of a session that
    /// came from Sign in with Apple: what `getCredentialState()` asks Apple about. Nil for a
    /// session from the web flow.
    public var appleUserID: String?

    public init(
        accessToken: String, tokenType: String, idToken: String, refreshToken: String?, expiresAt: Int64,
        scope: String?, claims: JWTClaims, appleUserID: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.claims = claims
        self.appleUserID = appleUserID
    }

    public var subject: String? { claims.subject }

    /// Whether the access token expires within `margin` seconds of `now`.
    public func expires(within margin: Int64, now: Int64) -> Bool { expiresAt - margin <= now }

    /// The stored form: JSON with sorted keys, so equal sessions are equal bytes.
    public var storedBytes: [UInt8] {
        var members: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": .string(tokenType),
            "id_token": .string(idToken),
            "expires_at": .int(expiresAt),
        ]
        if let refreshToken { members["refresh_token"] = .string(refreshToken) }
        if let scope { members["scope"] = .string(scope) }
        if let appleUserID { members["apple_user_id"] = .string(appleUserID) }
        return JSONValue.object(members).serialized()
    }

    /// Reads the stored form back; the ID token was verified before it was stored.
    public init(storedBytes: [UInt8]) throws(SignInError) {
        let object: [String: JSONValue]
        do {
            object = try JSONValue.parseObject(storedBytes)
        } catch {
            throw SignInError(.storage, "the stored session is not JSON: \(error.message)")
        }
        guard let accessToken = object["access_token"]?.stringValue,
            let idToken = object["id_token"]?.stringValue, let expiresAt = object["expires_at"]?.int64Value
        else { throw SignInError(.storage, "the stored session lacks access_token, id_token or expires_at") }
        let claims: JWTClaims
        do {
            claims = try Self.unverifiedClaims(of: idToken)
        } catch {
            throw SignInError(.storage, "the stored ID token cannot be read: \(error.message)")
        }
        self.init(
            accessToken: accessToken, tokenType: object["token_type"]?.stringValue ?? "Bearer",
            idToken: idToken,
            refreshToken: object["refresh_token"]?.stringValue, expiresAt: expiresAt,
            scope: object["scope"]?.stringValue, claims: claims,
            appleUserID: object["apple_user_id"]?.stringValue)
    }

    /// The claims of an ID token, read without checking its signature: for a token verified
    /// before it was stored (or, with the `persist-before-verify` fault, not at all).
    static func unverifiedClaims(of idToken: String) throws(JOSEError) -> JWTClaims {
        try JWTClaims(json: JWS.parse(idToken).payloadObject())
    }

    /// A summary for reports: subject, claims, the ID token's signing algorithm, expiry, scope
    /// and whether a refresh token is held (never the tokens themselves).
    public var summary: JSONValue {
        var members: [String: JSONValue] = [
            "claims": claims.json, "expires_at": .int(expiresAt), "token_type": .string(tokenType),
            "has_refresh_token": .bool(refreshToken != nil),
        ]
        if let subject { members["subject"] = .string(subject) }
        if let scope { members["scope"] = .string(scope) }
        if let header = try? JWT.decodeUnverified(idToken).header, let algorithm = header["alg"]?.stringValue
        {
            members["id_token_alg"] = .string(algorithm)
        }
        return .object(members)
    }
}
