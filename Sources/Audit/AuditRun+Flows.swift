import HTTPCore
import JOSE
import JSON
import OAuthCore
import WebAuthSession

/// The flows several checks read, each run once.
struct FlowCaches {
    var keySet: (set: JWKSet, evidence: [Int])?
    var main: CodeFlow?
    var codeReuse: (evidence: [Int], verdicts: (single: Verdict, revokes: Verdict))?
}

/// One authorization request and where its sheet ended.
struct Authorization {
    var state: String
    var nonce: String
    var pkce: PKCE?
    var redirectURI: String
    var end: SheetEnd
    var evidence: [Int]
}

/// An authorization and the redemption of its code.
struct CodeFlow {
    var authorization: Authorization
    var answer: AuditProbe.TokenAnswer
    var evidence: [Int]
}

/// How the authorization request asks for PKCE.
enum PKCERequest {
    case s256
    case plain
    case none
}

extension AuditRun {
    var authorizationEndpoint: String { metadata?.authorizationEndpoint ?? "" }
    var tokenEndpoint: String { metadata?.tokenEndpoint ?? "" }

    /// How `client` authenticates at the token endpoint: its own method, else
    /// `client_secret_basic` for a secret (`client_secret_post` when discovery lists only that),
    /// else `none`.
    func method(for client: AuditClient) -> TokenEndpointAuthMethod {
        if let method = client.method { return method }
        guard client.secret != nil else { return .publicClient }
        let advertised = metadata?.authMethods ?? []
        if advertised.contains(TokenEndpointAuthMethod.clientSecretPost.rawValue),
            !advertised.contains(TokenEndpointAuthMethod.clientSecretBasic.rawValue)
        {
            return .clientSecretPost
        }
        return .clientSecretBasic
    }

    /// An authorization request as the app sends it: `response_type=code`, the app's scopes, a
    /// fresh `state` and `nonce`, PKCE as asked, and `extra` on top (an empty value removes a
    /// parameter).
    func authorizationRequest(
        pkce pkceRequest: PKCERequest = .s256, redirectURI: String? = nil, client: AuditClient? = nil,
        extra: [String: String] = [:]
    ) -> (url: String, state: String, nonce: String, pkce: PKCE?) {
        let redirectURI = redirectURI ?? target.redirectURI
        let state = probe.randomString()
        let nonce = probe.randomString()
        var pkce: PKCE?
        var parameters: [(String, String)] = [
            (OAuthParameter.responseType, "code"),
            (OAuthParameter.clientID, (client ?? target.client).id),
            (OAuthParameter.redirectURI, redirectURI),
            (OAuthParameter.scope, target.scopes.joined(separator: " ")),
            (OAuthParameter.state, state),
            (OAuthParameter.nonce, nonce),
        ]
        switch pkceRequest {
        case .s256:
            let pair = probe.newPKCE()
            pkce = pair
            parameters += [
                (OAuthParameter.codeChallenge, pair.challenge), (OAuthParameter.codeChallengeMethod, "S256"),
            ]
        case .plain:
            let pair = probe.newPKCE()
            pkce = pair
            parameters += [
                (OAuthParameter.codeChallenge, pair.verifier), (OAuthParameter.codeChallengeMethod, "plain"),
            ]
        case .none:
            break
        }
        if let audience = target.audience { parameters.append((OAuthParameter.audience, audience)) }
        for (name, value) in target.authorizationParameters.sorted(by: { $0.key < $1.key }) {
            parameters.append((name, value))
        }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) {
            parameters.removeAll { $0.0 == name }
            if !value.isEmpty { parameters.append((name, value)) }
        }
        let url = FormURLEncoding.appendingQuery(FormParameters(parameters), to: authorizationEndpoint)
        return (url, state, nonce, pkce)
    }

    /// The authorization request in the sheet, as the test user (shared store unless
    /// `ephemeral`).
    func authorize(
        pkce pkceRequest: PKCERequest = .s256, redirectURI: String? = nil, client: AuditClient? = nil,
        extra: [String: String] = [:], ephemeral: Bool = false, person: WebUserScript? = nil
    ) async throws -> Authorization {
        let redirectURI = redirectURI ?? target.redirectURI
        let request = authorizationRequest(
            pkce: pkceRequest, redirectURI: redirectURI, client: client, extra: extra)
        let (end, evidence) = try await exchanges {
            try await probe.sheet(request.url, redirectURI: redirectURI, ephemeral: ephemeral, person: person)
        }
        return Authorization(
            state: request.state, nonce: request.nonce, pkce: request.pkce, redirectURI: redirectURI,
            end: end,
            evidence: evidence)
    }

    /// Redeems an authorization's code (RFC 6749 §4.1.3): with its verifier and redirect URI
    /// unless told otherwise.
    func redeem(
        _ authorization: Authorization, code: String? = nil, verifier: String?? = nil,
        redirectURI: String? = nil, client: AuditClient? = nil, dpop: JWSSigner? = nil,
        dpopNonce: String? = nil,
        followsNonce: Bool = true
    ) async throws -> AuditProbe.TokenAnswer {
        var form = FormParameters()
        form.append(OAuthParameter.grantType, GrantType.authorizationCode)
        form.append(OAuthParameter.code, code ?? authorization.end.code ?? "")
        form.append(OAuthParameter.redirectURI, redirectURI ?? authorization.redirectURI)
        let sentVerifier = verifier ?? authorization.pkce?.verifier
        if let sentVerifier { form.append(OAuthParameter.codeVerifier, sentVerifier) }
        if let audience = target.audience { form.append(OAuthParameter.audience, audience) }
        let client = client ?? target.client
        return try await probe.token(
            form, endpoint: tokenEndpoint, client: client, method: method(for: client), dpop: dpop,
            nonce: dpopNonce,
            followsNonce: followsNonce)
    }

    /// A refresh (RFC 6749 §6) as `client`.
    func refresh(_ token: String, client: AuditClient? = nil, dpop: JWSSigner? = nil) async throws
        -> AuditProbe.TokenAnswer
    {
        let client = client ?? target.client
        return try await probe.token(
            Self.refreshForm(token), endpoint: tokenEndpoint, client: client, method: method(for: client),
            dpop: dpop)
    }

    /// A refresh request's form (RFC 6749 §6), before client authentication.
    static func refreshForm(_ token: String) -> FormParameters {
        [OAuthParameter.grantType: GrantType.refreshToken, OAuthParameter.refreshToken: token]
    }

    /// A whole code flow: authorization with S256 in the shared store, then the redemption.
    /// Throws a `ProbeFailure` naming where it stopped when no tokens came.
    func codeFlow(extra: [String: String] = [:], dpop: JWSSigner? = nil) async throws -> CodeFlow {
        let ((authorization, answer), evidence) = try await exchanges {
            let authorization = try await authorize(extra: extra)
            guard authorization.end.code != nil else {
                throw ProbeFailure(message: "the sign-in got no code: \(authorization.end.described)")
            }
            return (authorization, try await redeem(authorization, dpop: dpop))
        }
        guard answer.succeeded else {
            throw ProbeFailure(
                message: "the code was not redeemed: the token endpoint answered \(answer.described)")
        }
        return CodeFlow(authorization: authorization, answer: answer, evidence: evidence)
    }

    /// The first code flow, which the state, iss and ID token checks read.
    func mainFlow() async throws -> CodeFlow {
        if let main = caches.main {
            cite(main.evidence)
            return main
        }
        let flow = try await codeFlow()
        caches.main = flow
        return flow
    }

    /// The issuer's key set (`jwks_uri`).
    func keySet() async throws -> JWKSet {
        if let cached = caches.keySet {
            cite(cached.evidence)
            return cached.set
        }
        guard let uri = metadata?.jwksURI else { throw ProbeFailure(message: "discovery has no jwks_uri") }
        let (response, evidence) = try await exchanges { try await probe.get(uri) }
        guard response.status == 200 else {
            throw ProbeFailure(message: "the key set answered \(response.status)")
        }
        let set: JWKSet
        do {
            set = try JWKSet.parse(response.body)
        } catch {
            throw ProbeFailure(message: "the key set is not a JWK set: \(error.message)")
        }
        caches.keySet = (set, evidence)
        return set
    }

    /// Whether an access token still works: UserInfo's answer to it (200 or not), or nil when
    /// the issuer has no UserInfo endpoint.
    func accessTokenWorks(_ token: String, tokenType: String? = nil, dpop: JWSSigner? = nil) async throws
        -> Bool?
    {
        guard let endpoint = metadata?.userInfoEndpoint else { return nil }
        var headers = HTTPHeaders()
        if let dpop, tokenType?.lowercased() == "dpop" {
            headers.replaceOrAdd(name: "Authorization", value: "DPoP \(token)")
            headers.replaceOrAdd(
                name: "DPoP", value: try probe.proof(dpop, method: "GET", url: endpoint, accessToken: token))
        } else {
            headers.replaceOrAdd(name: "Authorization", value: "Bearer \(token)")
        }
        return try await probe.get(endpoint, headers: headers).status == 200
    }
}
