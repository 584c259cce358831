import HTTPCore
import JOSE
import JSON
import OAuthCore
import WebAuthSession
import WorldVocabulary

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
    /// The pushed request's `request_uri` the sheet opened with (RFC 9126 §4), if pushed.
    var requestURI: String? = nil

    /// Whether the sheet ended at `uri` with a code.
    func codeCame(to uri: String) -> Bool {
        guard end.code != nil, let url = end.callbackURL else { return false }
        return RedirectURIVariants.landed(url, on: uri)
    }
}

/// A pushed authorization request's answer, read as RFC 9126 §2.2 and §2.3 write it.
struct PushAnswer {
    var answer: AuditProbe.TokenAnswer

    var requestURI: String? { answer.object["request_uri"]?.stringValue }
    var expiresIn: Int64? { answer.object["expires_in"]?.int64Value }
}

/// An authorization and the redemption of its code.
struct CodeFlow {
    var authorization: Authorization
    var answer: AuditProbe.TokenAnswer
    var evidence: [Int]
}

/// Where an authorization request's sheet opens, or why it does not.
enum SheetOpening {
    case sheet(url: String, requestURI: String?)
    /// The push was refused, so no sheet opened.
    case refused(SheetEnd)
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

    /// How `client` authenticates at the token endpoint: its own method, else `private_key_jwt`
    /// for a key, `client_secret_basic` for a secret (`client_secret_post` when discovery lists only that),
    /// else `none`.
    func method(for client: AuditClient) -> TokenEndpointAuthMethod {
        if let method = client.method { return method }
        if client.key != nil { return .privateKeyJWT }
        guard client.secret != nil else { return .publicClient }
        let advertised = metadata?.authMethods ?? []
        if advertised.contains(TokenEndpointAuthMethod.clientSecretPost.rawValue),
            !advertised.contains(TokenEndpointAuthMethod.clientSecretBasic.rawValue)
        {
            return .clientSecretPost
        }
        return .clientSecretBasic
    }

    /// An authorization request's parameters as the app sends them: `response_type=code`, the
    /// app's scopes, a fresh `state` and `nonce`, PKCE as asked, and `extra` on top (an empty
    /// value removes a parameter).
    func authorizationParameters(
        pkce pkceRequest: PKCERequest = .s256, redirectURI: String? = nil, client: AuditClient? = nil,
        extra: [String: String] = [:]
    ) -> (parameters: FormParameters, state: String, nonce: String, pkce: PKCE?) {
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
        return (FormParameters(parameters), state, nonce, pkce)
    }

    /// The authorization request in the sheet, as the test user (shared store unless
    /// `ephemeral`).
    ///
    /// When discovery requires pushed authorization requests (RFC 9126 §5), the parameters are
    /// pushed first, as an app must, and the sheet opens with the `request_uri`; a refused push
    /// ends the authorization there (`SheetEnd.pushRefused`).
    func authorize(
        pkce pkceRequest: PKCERequest = .s256, redirectURI: String? = nil, client: AuditClient? = nil,
        extra: [String: String] = [:], ephemeral: Bool = false, person: WebUserScript? = nil,
        pushed: Bool? = nil
    ) async throws -> Authorization {
        let redirectURI = redirectURI ?? target.redirectURI
        let client = client ?? target.client
        let request = authorizationParameters(
            pkce: pkceRequest, redirectURI: redirectURI, client: client, extra: extra)
        let ((end, requestURI), evidence) = try await exchanges { () async throws -> (SheetEnd, String?) in
            switch try await opening(request.parameters, client: client, pushed: pushed) {
            case .refused(let end):
                return (end, nil)
            case .sheet(let url, let requestURI):
                let end = try await probe.sheet(
                    url, redirectURI: redirectURI, ephemeral: ephemeral, person: person)
                return (end, requestURI)
            }
        }
        return Authorization(
            state: request.state, nonce: request.nonce, pkce: request.pkce, redirectURI: redirectURI,
            end: end, evidence: evidence, requestURI: requestURI)
    }

    /// Where the sheet opens for an authorization request: at the authorization endpoint with
    /// the request's parameters, or, when `pushed` (by default: when discovery requires it, RFC
    /// 9126 §5, as an app must), with the `request_uri` of the parameters pushed first.
    func opening(_ parameters: FormParameters, client: AuditClient, pushed: Bool? = nil) async throws
        -> SheetOpening
    {
        guard pushed ?? (metadata?.requiresPushedAuthorization == true) else {
            return .sheet(
                url: FormURLEncoding.appendingQuery(parameters, to: authorizationEndpoint), requestURI: nil)
        }
        let push = try await self.push(parameters, client: client)
        guard push.answer.status == 201, let requestURI = push.requestURI else {
            return .refused(.pushRefused(status: push.answer.status, error: push.answer.error))
        }
        return .sheet(url: sheetURL(requestURI: requestURI, client: client), requestURI: requestURI)
    }

    /// The authorization endpoint's URL for a pushed request: `client_id` and `request_uri`
    /// only (RFC 9126 §4).
    func sheetURL(requestURI: String, client: AuditClient) -> String {
        FormURLEncoding.appendingQuery(
            [OAuthParameter.clientID: client.id, "request_uri": requestURI], to: authorizationEndpoint)
    }

    /// Pushes an authorization request's parameters to the PAR endpoint as `client`, with its
    /// token endpoint authentication (RFC 9126 §2).
    func push(_ parameters: FormParameters, client: AuditClient? = nil) async throws -> PushAnswer {
        guard let endpoint = metadata?.pushedAuthorizationEndpoint else {
            throw ProbeFailure(message: "discovery has no pushed_authorization_request_endpoint")
        }
        let client = client ?? target.client
        var form = parameters
        form[OAuthParameter.clientID] = nil  // authentication adds it back
        let answer = try await probe.token(
            form, endpoint: endpoint, tokenEndpoint: tokenEndpoint, client: client,
            method: method(for: client))
        return PushAnswer(answer: answer)
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
