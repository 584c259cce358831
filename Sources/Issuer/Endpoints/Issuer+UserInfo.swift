import HTTPCore
import JSON
import OAuthCore

// `GET|POST /userinfo` (OpenID Connect Core §5.3), a protected resource (RFC 6750, RFC 9449 §7).
extension Issuer {
    func userInfo(_ request: HTTPRequest) -> HTTPResponse {
        let now = clock.now()
        var response: HTTPResponse
        do {
            response = try answerUserInfo(request, now: now)
        } catch {
            response = error.response
        }
        if request.headers.contains("DPoP"), !response.headers.contains("DPoP-Nonce"),
            let nonce = dpopNonceHeader(now: now)
        {
            response.headers.add(name: "DPoP-Nonce", value: nonce)
        }
        return response
    }

    /// The access token comes in the `Authorization` header only (RFC 6750 §2.1; DPoP §7.1):
    /// `Bearer` for unbound tokens, `DPoP` plus a proof for bound ones. The order of checks:
    /// credentials present, token genuine and unexpired, the `openid` scope (403 otherwise),
    /// meant for userinfo, bound as presented, not revoked, its user still there.
    private func answerUserInfo(_ request: HTTPRequest, now: Int64) throws(OAuthError) -> HTTPResponse {
        let fields = request.headers.values(for: "Authorization")
        guard fields.count <= 1 else {
            throw .invalidRequest("the request has several Authorization headers")
        }
        guard let (scheme, token) = fields.first.flatMap(Issuer.accessTokenCredentials) else {
            return missingCredentials()
        }
        let verified = try verifyAccessToken(token, now: now, scheme: scheme)
        guard verified.scopes.contains(StandardScope.openID) else {
            throw OAuthError(
                "insufficient_scope", "the access token lacks the openid scope", status: 403,
                headers: [
                    "WWW-Authenticate": Issuer.challenge(
                        scheme,
                        [
                            OAuthParameter.error: "insufficient_scope",
                            OAuthParameter.errorDescription: "the openid scope is required",
                            "scope": StandardScope.openID,
                        ])
                ])
        }
        guard verified.audience?.contains(url(Path.userInfo)) == true else {
            throw .invalidToken("the access token is not meant for the userinfo endpoint", scheme: scheme)
        }
        let presentation = try ResourceTokenPresentation.decide(scheme: scheme, boundTo: verified.thumbprint)
        if case .dpop = presentation {
            let proof: DPoPProof?
            do {
                proof = try verifyDPoPProof(request, endpoint: .resource(accessToken: token), now: now)
            } catch {
                throw Issuer.resourceDPoPError(error)
            }
            if let problem = presentation.proofProblem(proofThumbprint: proof?.thumbprint) {
                throw Issuer.resourceDPoPError(problem)
            }
        }
        let (revoked, user, badSubject) = state.withLock { state -> (Bool, UserAccount?, Bool) in
            if state.revokedAccessTokens[verified.id] != nil { return (true, nil, false) }
            if let family = AccessTokenID(jti: verified.id)?.family,
                state.revokedAccessTokenFamilies[family] != nil
            {
                return (true, nil, false)
            }
            guard let user = state.users[verified.subject] else { return (false, nil, false) }
            return (false, user, state.faults.take(.userInfoBadSubject))
        }
        guard !revoked else { throw .invalidToken("the access token was revoked", scheme: scheme) }
        guard let user else {
            throw .invalidToken("the access token's user no longer exists", scheme: scheme)
        }
        var claims = userClaims(user, scopes: verified.scopes)
        // rp-userinfo-bad-sub-claim: a sub that is not the ID token's.
        claims["sub"] = .string(badSubject ? user.id + "-someone-else" : user.id)
        return .json(.object(claims), headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
    }

    /// `Bearer`/`DPoP` and the token of an Authorization header; `nil` for another scheme.
    static func accessTokenCredentials(_ field: String) -> (scheme: String, token: String)? {
        let trimmed = field.drop { $0 == " " }
        guard let space = trimmed.firstIndex(of: " ") else { return nil }
        let scheme = String(trimmed[..<space])
        let token = String(trimmed[space...].drop { $0 == " " })
        let canonical: String
        if scheme.caseInsensitiveEquals("Bearer") {
            canonical = "Bearer"
        } else if scheme.caseInsensitiveEquals("DPoP") {
            canonical = "DPoP"
        } else {
            return nil
        }
        return token.isEmpty ? nil : (canonical, token)
    }

    /// RFC 6750 §3.1: a request without credentials gets a challenge and no error code; none
    /// at all with the `userinfo-no-challenge` deviation (§3 says MUST).
    private func missingCredentials() -> HTTPResponse {
        var headers: HTTPHeaders = ["Cache-Control": "no-store", "Pragma": "no-cache"]
        if tenant.deviates(.userInfoNoChallenge) { return HTTPResponse(status: 401, headers: headers) }
        headers.add(name: "WWW-Authenticate", value: Issuer.challenge("Bearer", ["realm": identifier]))
        headers.add(
            name: "WWW-Authenticate", value: Issuer.challenge("DPoP", ["algs": Issuer.dpopAlgorithms]))
        return HTTPResponse(status: 401, headers: headers)
    }

    /// A DPoP failure at a resource: 401 with a `DPoP` challenge naming the error (RFC 9449
    /// §7.1, §9), keeping any `DPoP-Nonce`. Overload (503) passes through.
    static func resourceDPoPError(_ error: OAuthError) -> OAuthError {
        guard error.status == 400 else { return error }
        var headers = error.headers
        headers["WWW-Authenticate"] = challenge(
            "DPoP",
            [
                OAuthParameter.error: error.code, OAuthParameter.errorDescription: error.description,
                "algs": dpopAlgorithms,
            ])
        return OAuthError(error.code, error.description, status: 401, headers: headers)
    }
}
