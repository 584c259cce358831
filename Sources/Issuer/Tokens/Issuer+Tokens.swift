import Cryptography
import HTTPCore
import JOSE
import JSON
import OAuthCore
import WorldVocabulary

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

/// The random part of a refresh token not yet made (`RefreshTokenFormat.seedLength` bytes).
struct RefreshTokenSeed: Sendable, Equatable {
    var bytes: [UInt8]
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
        Dictionary(uniqueKeysWithValues: userClaimMembers(user, scopes: scopes))
    }

    /// `userClaims` as a list of members, for a claims set written without a dictionary.
    /// `reserve` is room for the members the caller adds (the rest of a claims set).
    func userClaimMembers(_ user: UserAccount, scopes: [String], reserve: Int = 0) -> [(
        key: String, value: JSONValue
    )] {
        var claims: [(key: String, value: JSONValue)] = []
        claims.reserveCapacity(5 + reserve)
        if scopes.contains(StandardScope.profile) {
            if let name = user.name { claims.append(("name", .string(name))) }
            if let given = user.givenName { claims.append(("given_name", .string(given))) }
            if let family = user.familyName { claims.append(("family_name", .string(family))) }
        }
        if scopes.contains(StandardScope.email), let email = user.email {
            claims.append(("email", .string(email)))
            claims.append(("email_verified", .bool(user.emailVerified)))
        }
        return claims
    }

    /// The JSON payload of a claims set: `claims.json.serialized()`, with `extra` as its other
    /// claims, written from a list rather than a dictionary (two JWTs per token response).
    /// Give `extra` room for 9 more members (the registered claims) to spare a copy.
    static func claimsPayload(_ claims: JWTClaims, extra: consuming [(key: String, value: JSONValue)])
        -> [UInt8]
    {
        assert(claims.otherClaims.isEmpty, "other claims go in extra")
        var members = extra
        members.reserveCapacity(members.count + 9)
        if let issuer = claims.issuer { members.append(("iss", .string(issuer))) }
        if let subject = claims.subject { members.append(("sub", .string(subject))) }
        switch claims.audience {
        case .single(let audience)?: members.append(("aud", .string(audience)))
        case .multiple(let audiences)?: members.append(("aud", .array(audiences.map(JSONValue.string))))
        case nil: break
        }
        if let expiresAt = claims.expiresAt { members.append(("exp", .int(expiresAt))) }
        if let notBefore = claims.notBefore { members.append(("nbf", .int(notBefore))) }
        if let issuedAt = claims.issuedAt { members.append(("iat", .int(issuedAt))) }
        if let jwtID = claims.jwtID { members.append(("jti", .string(jwtID))) }
        if let authorizedParty = claims.authorizedParty { members.append(("azp", .string(authorizedParty))) }
        if let nonce = claims.nonce { members.append(("nonce", .string(nonce))) }
        return JSONValue.serializedObject(members)
    }

    /// An access token in the JWT profile of RFC 9068 §2; `id` is a `jti` chosen in advance.
    func mintAccessToken(_ grant: TokenGrant, now: Int64, id: String, signer: TokenSigner) throws(OAuthError)
        -> (token: String, id: String, expiresAt: Int64)
    {
        let lifetime = lifetimes(for: grant.client).accessToken
        var audiences: [String] = []
        if let audience = grant.audience ?? tenant.defaultAudience { audiences.append(audience) }
        if grant.scopes.contains(StandardScope.openID) { audiences.append(userInfoURL) }
        let claims = JWTClaims(
            issuer: identifier, subject: grant.user.id,
            audience: audiences.count == 1 ? .single(audiences[0]) : .multiple(audiences),
            expiresAt: now + lifetime,
            issuedAt: now, jwtID: id)
        var extra: [(key: String, value: JSONValue)] = []
        extra.reserveCapacity(12)
        extra.append(("client_id", .string(grant.client.id)))
        extra.append(("scope", .string(ScopeList.format(grant.scopes))))
        if let jkt = grant.dpopKeyThumbprint { extra.append(("cnf", ["jkt": .string(jkt)])) }
        do {
            let token = try signer.sign(
                payload: Issuer.claimsPayload(claims, extra: extra), header: signer.accessTokenHeader)
            return (token, id, now + lifetime)
        } catch {
            throw OAuthError(OAuthErrorCode.serverError, "cannot sign the access token", status: 500)
        }
    }

    /// Takes the RP conformance fault the next ID token of a grant of this kind gets, if any:
    /// a refresh takes a refresh-only fault first.
    static func takeIDTokenFault(for kind: TokenGrant.Kind, in state: inout IssuerState) -> IssuerFault? {
        let refreshFault =
            kind == .refresh
            ? state.faults.take {
                $0.fault == .refreshedIDTokenIssuerMismatch || $0.fault == .refreshedIDTokenSubjectMismatch
            }?.fault : nil
        return refreshFault ?? state.faults.take { $0.fault.affectsIDToken }?.fault
    }

    /// An ID token (OpenID Connect Core §2, §3.1.3.6), with `fault` (taken by
    /// `takeIDTokenFault`) applied.
    func mintIDToken(
        _ grant: TokenGrant, accessToken: String, now: Int64, signer tokenSigner: TokenSigner,
        fault: IssuerFault?
    ) throws(OAuthError) -> String {
        let lifetime = lifetimes(for: grant.client).idToken
        var claims = JWTClaims(
            issuer: identifier, subject: grant.user.id, audience: .single(grant.client.id),
            expiresAt: now + lifetime,
            issuedAt: now, authorizedParty: grant.client.id, nonce: grant.nonce)
        let extra = try idTokenMembers(grant, accessToken: accessToken, signer: tokenSigner, fault: fault)
        if let fault {
            Issuer.spoil(&claims, by: fault, subject: grant.user.id, now: now, lifetime: lifetime)
        }
        let signing = try idTokenSigner(tokenSigner, fault: fault)
        do {
            return try Issuer.signIDToken(
                Issuer.claimsPayload(claims, extra: extra), signer: tokenSigner.signer, signing: signing,
                fault: fault)
        } catch {
            throw OAuthError(OAuthErrorCode.serverError, "cannot sign the ID token", status: 500)
        }
    }

    /// The ID token's members besides the registered claims: the user's claims for the scopes,
    /// `auth_time`, `sid` and `at_hash`.
    private func idTokenMembers(
        _ grant: TokenGrant, accessToken: String, signer tokenSigner: TokenSigner, fault: IssuerFault?
    ) throws(OAuthError) -> [(key: String, value: JSONValue)] {
        var extra = userClaimMembers(grant.user, scopes: grant.scopes, reserve: 3 + 9)
        // Core §2: REQUIRED when max_age was requested; this issuer always sends it, unless the
        // tenant deviates (`auth-time-omitted`).
        if !tenant.deviates(.authTimeOmitted) { extra.append(("auth_time", .int(grant.authTime))) }
        if let sid = grant.sessionID { extra.append(("sid", .string(sid))) }
        // at_hash (Core §3.1.3.6) under the alg the token is signed with. The RP faults leave it
        // out, or spoil it as the conformance suite does (a "1" appended).
        if fault != .idTokenAccessTokenHashMissing {
            let algorithm = tokenSigner.signer.algorithm.rawValue
            guard var atHash = try? HashClaim.leftHalfHash(of: accessToken, algorithm: algorithm) else {
                throw OAuthError(OAuthErrorCode.serverError, "cannot hash the access token", status: 500)
            }
            if fault == .idTokenBadAccessTokenHash { atHash += "1" }
            extra.append((HashClaim.accessToken.rawValue, .string(atHash)))
        }
        return extra
    }

    /// The claims an RP conformance fault spoils: issuer, subject, audience, times or nonce.
    private static func spoil(
        _ claims: inout JWTClaims, by fault: IssuerFault, subject: String, now: Int64, lifetime: Int64
    ) {
        switch fault {
        case .idTokenIssuerMismatch, .refreshedIDTokenIssuerMismatch:
            claims.issuer = "https://impostor.example"
        case .idTokenSubjectMissing: claims.subject = nil
        case .refreshedIDTokenSubjectMismatch: claims.subject = subject + "-someone-else"
        case .idTokenAudienceMismatch:
            claims.audience = .single("someone-else")
            claims.authorizedParty = "someone-else"
        case .idTokenAudienceMissing:
            claims.audience = nil
            claims.authorizedParty = nil
        case .idTokenIssuedAtMissing: claims.issuedAt = nil
        case .idTokenExpired:
            claims.issuedAt = now - 2 * lifetime
            claims.expiresAt = now - lifetime
        case .idTokenIssuedInFuture:
            claims.issuedAt = now + 3600
            claims.expiresAt = now + 3600 + lifetime
        case .idTokenNotYetValid: claims.notBefore = now + 3600
        case .nonceInvalid: claims.nonce = "not-the-nonce-you-sent"
        default: break
        }
    }

    /// The signer of the ID token: the tenant's, or for the `kid`-absent faults the same key
    /// without a `kid`, with the key set presented as the fault needs.
    private func idTokenSigner(_ tokenSigner: TokenSigner, fault: IssuerFault?) throws(OAuthError)
        -> TokenSigner
    {
        guard fault == .idTokenKidAbsentSingleKey || fault == .idTokenKidAbsentMultipleKeys else {
            return tokenSigner
        }
        let signer = tokenSigner.signer
        do {
            let signing = TokenSigner(try JWSSigner(key: signer.key, algorithm: signer.algorithm, keyID: nil))
            if fault == .idTokenKidAbsentMultipleKeys {
                let source = state.withLock { $0.keys.source }
                let decoy = try JWSSigner(key: try source.makeKey(for: .es256), algorithm: .es256).publicJWK
                let sameType = signer.algorithm == .es256 ? decoy : try decoyRSAKey(source)
                state.withLock { $0.jwksPresentation = .withDecoy(sameType) }
            } else {
                state.withLock { $0.jwksPresentation = .activeKeyOnly }
            }
            return signing
        } catch {
            throw OAuthError(OAuthErrorCode.serverError, "cannot prepare the injected fault", status: 500)
        }
    }

    /// The signed ID token, or for the signature faults one unsigned, signed with HS256 keyed
    /// with the public key, or with a corrupted signature.
    private static func signIDToken(
        _ payload: [UInt8], signer: JWSSigner, signing: TokenSigner, fault: IssuerFault?
    )
        throws -> String
    {
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
            let token = try signing.sign(payload: payload, header: signing.idTokenHeader)
            return Issuer.corruptSignature(token)
        default:
            return try signing.sign(payload: payload, header: signing.idTokenHeader)
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

    private func decoyRSAKey(_ source: SigningKeySource) throws -> JWK {
        guard case .rsa(let key) = try source.makeKey(for: .rs256) else {
            throw JOSEError(.signingFailed, "no RSA key for the decoy")
        }
        return JWK(key.publicKey, keyID: nil, algorithm: "RS256")
    }

    /// The random part of a fresh refresh token, drawn before the state lock is taken; the
    /// token is made when it is stored (`storeRefreshToken`), which knows its family.
    func newRefreshToken() -> RefreshTokenSeed {
        RefreshTokenSeed(bytes: random.bytes(count: RefreshTokenFormat.seedLength))
    }

    /// A fresh access token `jti`.
    func newAccessTokenID() -> AccessTokenID { AccessTokenID(bytes: random.bytes(count: 16)).unmarked }

    /// Makes and stores a refresh token for `grant` in a family: the given one, or a new family
    /// whose grant is `shared` (one object for many families) or made from `grant`. The token
    /// names its family and expiry (`RefreshTokenFormat`).
    ///
    /// A public client's token is bound to the grant's DPoP key, if it has one (RFC 9449 §5).
    @discardableResult
    func storeRefreshToken(
        _ seed: RefreshTokenSeed, for grant: TokenGrant, familyID: RefreshFamily.ID?,
        shared: RefreshGrant? = nil, now: Int64, in state: inout IssuerState
    ) -> (token: String, familyID: RefreshFamily.ID, hash: TokenHash) {
        let familyID = familyID ?? state.newRefreshFamily(shared ?? RefreshGrant(grant))
        let binding = grant.client.isPublic ? grant.dpopKeyThumbprint : nil
        let expiresAt = now + lifetimes(for: grant.client).refreshToken
        let key = refreshTokenKey(in: &state)
        let token = RefreshTokenFormat(familyID: familyID, expiresAt: expiresAt, bound: binding != nil)
            .token(seed: seed.bytes, key: key)
        let hash = TokenHash(of: token)
        state.storeRefreshToken(hash, familyID: familyID, dpopKeyThumbprint: binding, expiresAt: expiresAt)
        return (token, familyID, hash)
    }

    /// The state's refresh token key, drawn with its first refresh token.
    func refreshTokenKey(in state: inout IssuerState) -> HMACSHA256Key {
        if let key = state.refreshTokenKey { return key }
        let key = HMACSHA256Key(random.bytes(count: 32))
        state.refreshTokenKey = key
        return key
    }

    /// The successful token response (RFC 6749 §5.1), never cached.
    func tokenResponse(
        _ tokens: MintedTokens, requestedScopes: [String]?, grantedScopes: [String],
        issuedTokenType: String? = nil
    )
        -> HTTPResponse
    {
        var body: [(key: String, value: JSONValue)] = [
            (OAuthParameter.accessToken, .string(tokens.accessToken)),
            (OAuthParameter.tokenType, .string(tokens.tokenType)),
            (OAuthParameter.expiresIn, .int(tokens.expiresIn)),
        ]
        if let idToken = tokens.idToken { body.append((OAuthParameter.idToken, .string(idToken))) }
        if let refreshToken = tokens.refreshToken {
            body.append((OAuthParameter.refreshToken, .string(refreshToken)))
        }
        // RFC 6749 §5.1: scope is required when it differs from what was asked (as sets).
        let sameScopes = requestedScopes.map {
            $0.allSatisfy(grantedScopes.contains) && grantedScopes.allSatisfy($0.contains)
        }
        if sameScopes != true {
            body.append((OAuthParameter.scope, .string(ScopeList.format(grantedScopes))))
        }
        if let issuedTokenType { body.append(("issued_token_type", .string(issuedTokenType))) }
        return HTTPResponse(
            status: 200,
            headers: ["Cache-Control": "no-store", "Pragma": "no-cache", "Content-Type": MediaType.json],
            body: JSONValue.serializedObject(body))
    }
}
