import Cryptography
import HTTPCore
import JOSE
import JSON
import OAuthCore

/// What a grant asks the issuer to mint.
struct TokenGrant: Sendable {
    enum Kind: Sendable { case authorizationCode, refresh, exchange }

    var kind: Kind
    var user: UserAccount
    var client: ClientRegistration
    var scopes: [String]
    var audience: String?
    var nonce: String?
    var authTime: Int64
    var sessionID: String?
    /// RFC 7638 thumbprint of the DPoP key the tokens are bound to (RFC 9449 §6).
    var dpopKeyThumbprint: String?
}

/// Tokens minted for one grant.
struct MintedTokens: Sendable {
    var accessToken: String
    var accessTokenID: String
    var accessTokenExpiresAt: Int64
    var idToken: String?
    var refreshToken: String?
    var refreshFamilyID: RefreshFamily.ID?
    var expiresIn: Int64
    var tokenType: String
}

extension Issuer {
    /// Claims about the user that the granted scopes release (OpenID Connect Core §5.4).
    func userClaims(_ user: UserAccount, scopes: [String]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        if scopes.contains(StandardScope.profile) {
            if let name = user.name { claims["name"] = .string(name) }
            if let given = user.givenName { claims["given_name"] = .string(given) }
            if let family = user.familyName { claims["family_name"] = .string(family) }
        }
        if scopes.contains(StandardScope.email), let email = user.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        return claims
    }

    /// An access token in the JWT profile of RFC 9068 §2; `id` is a `jti` chosen in advance.
    func mintAccessToken(_ grant: TokenGrant, now: Int64, id: String? = nil) throws(OAuthError) -> (
        token: String, id: String, expiresAt: Int64
    ) {
        let lifetime = lifetimes(for: grant.client).accessToken
        let id = id ?? randomValue(byteCount: 16)
        var audiences: [String] = []
        if let audience = grant.audience ?? tenant.defaultAudience { audiences.append(audience) }
        if grant.scopes.contains(StandardScope.openID) { audiences.append(url(Path.userInfo)) }
        var claims = JWTClaims(
            issuer: identifier, subject: grant.user.id,
            audience: audiences.count == 1 ? .single(audiences[0]) : .multiple(audiences),
            expiresAt: now + lifetime,
            issuedAt: now, jwtID: id)
        claims.otherClaims["client_id"] = .string(grant.client.id)
        claims.otherClaims["scope"] = .string(ScopeList.format(grant.scopes))
        if let jkt = grant.dpopKeyThumbprint { claims.otherClaims["cnf"] = ["jkt": .string(jkt)] }
        let signer = state.withLock { $0.keys.active }
        do {
            let token = try JWT.sign(claims, signer: signer, extraHeader: ["typ": "at+jwt"])
            return (token, id, now + lifetime)
        } catch {
            throw OAuthError("server_error", "cannot sign the access token", status: 500)
        }
    }

    /// An ID token (OpenID Connect Core §2, §3.1.3.6), with any pending RP conformance fault applied.
    func mintIDToken(_ grant: TokenGrant, accessToken: String, now: Int64) throws(OAuthError) -> String {
        let lifetime = lifetimes(for: grant.client).idToken
        var claims = JWTClaims(
            issuer: identifier, subject: grant.user.id, audience: .single(grant.client.id),
            expiresAt: now + lifetime,
            issuedAt: now, authorizedParty: grant.client.id, nonce: grant.nonce)
        claims.otherClaims = userClaims(grant.user, scopes: grant.scopes)
        claims.otherClaims["auth_time"] = .int(grant.authTime)
        if let sid = grant.sessionID { claims.otherClaims["sid"] = .string(sid) }
        // at_hash: the left half of SHA-256 of the access token (Core §3.1.3.6).
        claims.otherClaims["at_hash"] = .string(
            Base64URL.encode(SHA256.hash(Array(accessToken.utf8)).prefix(16)))

        let (signer, fault) = state.withLock { state -> (JWSSigner, IssuerFault?) in
            let refreshFault =
                grant.kind == .refresh
                ? state.faults.take {
                    $0.fault == .refreshedIDTokenIssuerMismatch
                        || $0.fault == .refreshedIDTokenSubjectMismatch
                }?.fault : nil
            let fault = refreshFault ?? state.faults.take { $0.fault.affectsIDToken }?.fault
            return (state.keys.active, fault)
        }
        var signing = signer
        switch fault {
        case .idTokenIssuerMismatch?, .refreshedIDTokenIssuerMismatch?:
            claims.issuer = "https://impostor.example"
        case .idTokenSubjectMissing?: claims.subject = nil
        case .refreshedIDTokenSubjectMismatch?: claims.subject = grant.user.id + "-someone-else"
        case .idTokenAudienceMismatch?:
            claims.audience = .single("someone-else")
            claims.authorizedParty = "someone-else"
        case .idTokenAudienceMissing?:
            claims.audience = nil
            claims.authorizedParty = nil
        case .idTokenIssuedAtMissing?: claims.issuedAt = nil
        case .idTokenExpired?:
            claims.issuedAt = now - 2 * lifetime
            claims.expiresAt = now - lifetime
        case .idTokenIssuedInFuture?:
            claims.issuedAt = now + 3600
            claims.expiresAt = now + 3600 + lifetime
        case .idTokenNotYetValid?: claims.notBefore = now + 3600
        case .nonceInvalid?: claims.nonce = "not-the-nonce-you-sent"
        case .idTokenKidAbsentSingleKey?, .idTokenKidAbsentMultipleKeys?:
            do {
                signing = try JWSSigner(key: signer.key, algorithm: signer.algorithm, keyID: nil)
                if fault == .idTokenKidAbsentMultipleKeys {
                    let decoy = try JWSSigner(key: .p256(try P256PrivateKey()), algorithm: .es256).publicJWK
                    let sameType = signer.algorithm == .es256 ? decoy : try decoyRSAKey()
                    state.withLock { $0.jwksPresentation = .withDecoy(sameType) }
                } else {
                    state.withLock { $0.jwksPresentation = .activeKeyOnly }
                }
            } catch {
                throw OAuthError("server_error", "cannot prepare the injected fault", status: 500)
            }
        default: break
        }
        do {
            let payload = claims.json.serialized()
            switch fault {
            case .idTokenUnsigned?:
                return Base64URL.encode(JSONValue.object(["alg": "none", "typ": "JWT"]).serialized()) + "."
                    + Base64URL.encode(payload) + "."
            case .idTokenBadSignatureHS256?:
                let input =
                    Base64URL.encode(
                        JSONValue.object(["alg": "HS256", "typ": "JWT", "kid": .string(signer.keyID ?? "")])
                            .serialized())
                    + "." + Base64URL.encode(payload)
                // Keyed with the public JWK: the classic algorithm-confusion forgery.
                let mac = HMACSHA256.authenticationCode(
                    for: Array(input.utf8), key: signer.publicJWK.json.serialized())
                return input + "." + Base64URL.encode(mac)
            case .idTokenBadSignatureES256?, .idTokenBadSignatureRS256?:
                let token = try JWS.sign(payload: payload, signer: signing, extraHeader: ["typ": "JWT"])
                return Issuer.corruptSignature(token)
            default:
                return try JWS.sign(payload: payload, signer: signing, extraHeader: ["typ": "JWT"])
            }
        } catch {
            throw OAuthError("server_error", "cannot sign the ID token", status: 500)
        }
    }

    /// Flips a bit in the middle of the signature, keeping the encoding valid.
    static func corruptSignature(_ token: String) -> String {
        guard let lastDot = token.lastIndex(of: "."),
            var signature = try? Base64URL.decode(token[token.index(after: lastDot)...]), !signature.isEmpty
        else { return token }
        signature[signature.count / 2] ^= 0x01
        return token[...lastDot] + Base64URL.encode(signature)
    }

    private func decoyRSAKey() throws -> JWK {
        JWK(try RSAPrivateKey(bits: 2048).publicKey, keyID: nil, algorithm: "RS256")
    }

    /// A fresh refresh token and its hash, made before the state lock is taken.
    func newRefreshToken() -> (token: String, hash: TokenHash) {
        let token = randomValue()
        return (token, TokenHash(of: token))
    }

    /// A fresh access token `jti`.
    func newAccessTokenID() -> AccessTokenID { AccessTokenID(bytes: random.bytes(count: 16)) }

    /// Stores a refresh token for `grant` in a family: the given one, or a new family whose
    /// grant is `shared` (one object for many families) or made from `grant`.
    ///
    /// A public client's token is bound to the grant's DPoP key, if it has one (RFC 9449 §5).
    func storeRefreshToken(
        _ token: (token: String, hash: TokenHash), for grant: TokenGrant, familyID: RefreshFamily.ID?,
        shared: RefreshGrant? = nil, now: Int64, in state: inout IssuerState
    ) -> (token: String, familyID: RefreshFamily.ID) {
        let familyID = familyID ?? state.newRefreshFamily(shared ?? RefreshGrant(grant))
        state.storeRefreshToken(
            token.hash, familyID: familyID,
            dpopKeyThumbprint: grant.client.isPublic ? grant.dpopKeyThumbprint : nil,
            expiresAt: now + lifetimes(for: grant.client).refreshToken)
        return (token.token, familyID)
    }

    /// Revokes a whole refresh token family (reuse detected, code replayed, or revocation):
    /// its tokens are judged by the family from then on (`IssuerState.refreshTokenStatus`).
    func revokeFamily(
        _ familyID: RefreshFamily.ID, reason: RefreshFamily.RevocationReason, in state: inout IssuerState
    ) {
        state.families[familyID]?.revokedReason = reason
    }

    /// The successful token response (RFC 6749 §5.1), never cached.
    func tokenResponse(
        _ tokens: MintedTokens, requestedScopes: [String]?, grantedScopes: [String],
        issuedTokenType: String? = nil
    )
        -> HTTPResponse
    {
        var body: [String: JSONValue] = [
            "access_token": .string(tokens.accessToken), "token_type": .string(tokens.tokenType),
            "expires_in": .int(tokens.expiresIn),
        ]
        if let idToken = tokens.idToken { body["id_token"] = .string(idToken) }
        if let refreshToken = tokens.refreshToken { body["refresh_token"] = .string(refreshToken) }
        // RFC 6749 §5.1: scope is required when it differs from what was asked.
        if requestedScopes.map({ Set($0) != Set(grantedScopes) }) ?? true {
            body["scope"] = .string(ScopeList.format(grantedScopes))
        }
        if let issuedTokenType { body["issued_token_type"] = .string(issuedTokenType) }
        return .json(.object(body), headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
    }
}
