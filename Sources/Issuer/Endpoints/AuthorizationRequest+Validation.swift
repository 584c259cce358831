import Cryptography
import HTTPCore
import JOSE
import OAuthCore

/// Why an `/authorize` request was refused, and so where the refusal may be sent
/// (RFC 6749 §4.1.2.1).
enum AuthorizationRequestRejection: Error, Sendable {
    /// The client or its redirect URI cannot be established: the user is told on a page, and
    /// nothing goes to a redirect URI that may belong to an attacker.
    case untrustedRedirect(String)
    /// The redirect URI is the client's own: the error goes back to it, with `state`.
    case redirect(OAuthError, redirectURI: String, state: String?)
}

extension AuthorizationRequest {
    /// Parameters this issuer reads; each may be sent at most once (RFC 6749 §3.1). Others
    /// are ignored, as RFC 6749 §3.1 requires of unrecognised parameters.
    static let recognizedParameters: Set<String> = [
        OAuthParameter.responseType, "response_mode", OAuthParameter.clientID, OAuthParameter.redirectURI,
        OAuthParameter.scope, OAuthParameter.state, OAuthParameter.nonce,
        OAuthParameter.codeChallenge, OAuthParameter.codeChallengeMethod, OAuthParameter.prompt,
        OAuthParameter.loginHint, OAuthParameter.maxAge, OAuthParameter.audience,
        "dpop_jkt", "request", "request_uri",
    ]

    /// Prompt values of OpenID Connect Core §3.1.2.1 (`select_account` is read as `login`:
    /// a user picks an account by signing in).
    static let supportedPrompts = Set(PromptValue.allCases.map(\.rawValue))

    /// Longest value accepted for any parameter the issuer stores or echoes.
    static let maximumValueLength = 4096

    /// Whether the user must sign in again whatever session the browser has: `prompt=login`
    /// or `select_account`, or `max_age=0` (OpenID Connect Core §3.1.2.1).
    var forcesLogin: Bool {
        prompt.contains("login") || prompt.contains("select_account") || maxAge == 0
    }

    /// Whether a session that authenticated at `authTime` is recent enough for `max_age`: the
    /// elapsed time may not exceed it (OpenID Connect Core §3.1.2.1). `max_age=0` is handled by
    /// `forcesLogin`, since a login in the same second would otherwise pass.
    func accepts(authTime: Int64, now: Int64) -> Bool {
        guard let maxAge else { return true }
        return now - authTime <= maxAge
    }

    /// Checks an `/authorize` query against the registered client and the tenant.
    ///
    /// OpenID Connect is not required: a request without the `openid` scope is a plain
    /// OAuth 2.0 authorization request (RFC 6749 §4.1) and gets a code all the same; the ID
    /// token is the token endpoint's business. `redirect_uri` is always required, as OpenID
    /// Connect Core §3.1.2.1 says, even for a client with one registered URI
    /// (RFC 6749 §3.1.2.3 would allow a default): the code record then always holds the URI
    /// the token request must repeat (RFC 6749 §4.1.3).
    static func validate(
        _ query: FormParameters, tenant: Tenant, client lookup: (String) -> ClientRegistration?
    ) throws(AuthorizationRequestRejection) -> (request: AuthorizationRequest, client: ClientRegistration) {
        let query = AuthorizeQuery(query)
        // The client and the redirect URI first: until both are known to be right, nothing
        // may be sent to the redirect URI.
        let (client, redirectURI) = try trustedRedirect(query, tenant: tenant, client: lookup)
        let refusal = AuthorizeRefusal(redirectURI: redirectURI, state: query.single(OAuthParameter.state))
        try checkParameterCounts(query, refusal)
        try checkRequestObjects(query, refusal)
        try checkResponseType(query, client: client, refusal)
        let codeChallenge = query.single(OAuthParameter.codeChallenge)
        let challengeMethod: CodeChallengeMethod
        do {
            challengeMethod = try checkCodeChallenge(
                codeChallenge, method: query.single(OAuthParameter.codeChallengeMethod), client: client,
                tenant: tenant)
        } catch {
            throw refusal(OAuthErrorCode.invalidRequest, error.description)
        }
        let (audience, scopes) = try audienceAndScopes(query, tenant: tenant, refusal)
        let prompt = try prompt(query, refusal)
        let maxAge = try maxAge(query, refusal)
        let dpopKeyThumbprint = try dpopKeyThumbprint(query, refusal)
        let request = AuthorizationRequest(
            clientID: client.id, redirectURI: redirectURI, scopes: scopes, state: refusal.state,
            nonce: query.single(OAuthParameter.nonce), codeChallenge: codeChallenge,
            codeChallengeMethod: challengeMethod, prompt: prompt,
            loginHint: query.single(OAuthParameter.loginHint),
            maxAge: maxAge, audience: audience, dpopKeyThumbprint: dpopKeyThumbprint)
        return (request, client)
    }

    /// The registered client and the redirect URI the request names, once both are known to be
    /// right (RFC 6749 §4.1.2.1): until then every refusal is shown to the user.
    private static func trustedRedirect(
        _ query: AuthorizeQuery, tenant: Tenant, client lookup: (String) -> ClientRegistration?
    ) throws(AuthorizationRequestRejection) -> (client: ClientRegistration, redirectURI: String) {
        let clientIDs = query.values(OAuthParameter.clientID)
        guard clientIDs.count < 2 else {
            throw .untrustedRedirect("The client_id parameter is given more than once (RFC 6749 §3.1).")
        }
        guard let clientID = clientIDs.first else {
            throw .untrustedRedirect("The request has no client_id.")
        }
        guard let client = lookup(clientID) else {
            throw .untrustedRedirect("No application with this client_id is registered.")
        }
        let redirectURIs = query.values(OAuthParameter.redirectURI)
        guard redirectURIs.count < 2 else {
            throw .untrustedRedirect("The redirect_uri parameter is given more than once (RFC 6749 §3.1).")
        }
        guard let redirectURI = redirectURIs.first else {
            throw .untrustedRedirect(
                "The request has no redirect_uri (required by OpenID Connect Core §3.1.2.1).")
        }
        // Before the registered list is consulted: such a URI must never be redirected to, nor
        // lead to the login page (RFC 6749 §4.1.2.1, RFC 3986 §3.2.1), unless the tenant
        // deviates (`redirect-uri-user-info`).
        guard !RedirectURIPolicy.hasUserInfo(redirectURI) || tenant.deviates(.redirectURIUserInfo) else {
            throw .untrustedRedirect(
                "The redirect_uri has user information before its host (RFC 3986 §3.2.1), "
                    + "which no registered redirect URI may have.")
        }
        // A deviation's near miss is accepted as it was given: the redirect goes to the URI the
        // request named, not to the registered one it was taken for.
        guard
            RedirectURIPolicy.matches(
                redirectURI, registered: client.redirectURIs, deviations: tenant.deviations)
        else {
            throw .untrustedRedirect("The redirect_uri is not registered for this application.")
        }
        return (client, redirectURI)
    }

    /// RFC 6749 §3.1: each recognized parameter at most once; and none longer than
    /// `maximumValueLength`.
    private static func checkParameterCounts(_ query: AuthorizeQuery, _ refusal: AuthorizeRefusal)
        throws(AuthorizationRequestRejection)
    {
        var counted = Set<String>()
        for pair in query.pairs where recognizedParameters.contains(pair.name) {
            guard counted.insert(pair.name).inserted else {
                throw refusal(
                    OAuthErrorCode.invalidRequest,
                    "\(pair.name) is given more than once (RFC 6749 section 3.1)")
            }
        }
        for pair in query.pairs
        where recognizedParameters.contains(pair.name) && pair.value.utf8.count > maximumValueLength {
            throw refusal(
                OAuthErrorCode.invalidRequest, "\(pair.name) is longer than \(maximumValueLength) bytes")
        }
    }

    /// OpenID Connect Core §6: request objects are not supported (see discovery).
    private static func checkRequestObjects(_ query: AuthorizeQuery, _ refusal: AuthorizeRefusal)
        throws(AuthorizationRequestRejection)
    {
        if query.single("request") != nil {
            throw refusal("request_not_supported", "the request parameter is not supported")
        }
        if query.single("request_uri") != nil {
            throw refusal("request_uri_not_supported", "the request_uri parameter is not supported")
        }
    }

    /// RFC 6749 §4.1.1: `response_type=code`, answered in the query, for a client allowed the
    /// authorization code grant (§4.1.2.1 `unauthorized_client`).
    private static func checkResponseType(
        _ query: AuthorizeQuery, client: ClientRegistration, _ refusal: AuthorizeRefusal
    ) throws(AuthorizationRequestRejection) {
        guard let responseType = query.single(OAuthParameter.responseType) else {
            throw refusal(OAuthErrorCode.invalidRequest, "response_type is required (RFC 6749 section 4.1.1)")
        }
        guard responseType == "code" else {
            throw refusal(
                "unsupported_response_type", "only response_type=code is supported (RFC 6749 section 4.1.1)")
        }
        if let mode = query.single("response_mode"), mode != "query" {
            throw refusal(OAuthErrorCode.invalidRequest, "only response_mode=query is supported")
        }
        guard client.grantTypes.contains(GrantType.authorizationCode) else {
            throw refusal(
                OAuthErrorCode.unauthorizedClient, "this application may not use the authorization code grant"
            )
        }
    }

    /// The `audience` (Auth0's: it names the API whose scopes become requestable; without one
    /// the tenant's default API applies, as it does for the access token) and the requested
    /// scopes, each requestable (RFC 6749 §3.3).
    private static func audienceAndScopes(
        _ query: AuthorizeQuery, tenant: Tenant, _ refusal: AuthorizeRefusal
    ) throws(AuthorizationRequestRejection) -> (audience: String?, scopes: [String]) {
        let audience = query.single(OAuthParameter.audience)
        if let audience, tenant.audience(audience) == nil {
            throw refusal(OAuthErrorCode.invalidRequest, "audience is not an API of this issuer")
        }
        let api = (audience ?? tenant.defaultAudience).flatMap(tenant.audience)
        let requestable = Set(tenant.scopes).union(api?.scopes ?? [])
        // RFC 6749 §3.3: without a default scope the request fails with invalid_scope.
        let scopes = ScopeList.parse(query.single(OAuthParameter.scope) ?? "")
        guard !scopes.isEmpty else {
            throw refusal(OAuthErrorCode.invalidScope, "scope is required (RFC 6749 section 3.3)")
        }
        // The allow-list holds only well-formed scope tokens (RFC 6749 §3.3), so it checks the
        // syntax too.
        for scope in scopes {
            guard requestable.contains(scope) else {
                throw refusal(OAuthErrorCode.invalidScope, "unknown scope \(scope)")
            }
        }
        return (audience, scopes)
    }

    /// OpenID Connect Core §3.1.2.1: `prompt` holds supported values, and `none` alone.
    private static func prompt(_ query: AuthorizeQuery, _ refusal: AuthorizeRefusal)
        throws(AuthorizationRequestRejection) -> Set<String>
    {
        guard let text = query.single(OAuthParameter.prompt) else { return [] }
        let prompt = Set(text.split(separator: " ").map(String.init))
        if let unknown = prompt.subtracting(supportedPrompts).sorted().first {
            throw refusal(
                OAuthErrorCode.invalidRequest,
                "prompt value \(unknown) is not supported (OpenID Connect Core section 3.1.2.1)")
        }
        if prompt.contains("none"), prompt.count > 1 {
            throw refusal(
                OAuthErrorCode.invalidRequest,
                "prompt=none cannot be combined with other values (OpenID Connect Core section 3.1.2.1)")
        }
        return prompt
    }

    /// OpenID Connect Core §3.1.2.1: `max_age` is a non-negative number of seconds.
    private static func maxAge(_ query: AuthorizeQuery, _ refusal: AuthorizeRefusal)
        throws(AuthorizationRequestRejection) -> Int64?
    {
        guard let text = query.single(OAuthParameter.maxAge) else { return nil }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(text) else {
            throw refusal(
                OAuthErrorCode.invalidRequest, "max_age must be a non-negative integer number of seconds")
        }
        return seconds
    }

    /// RFC 9449 §10: `dpop_jkt` is a JWK SHA-256 thumbprint (RFC 7638).
    private static func dpopKeyThumbprint(_ query: AuthorizeQuery, _ refusal: AuthorizeRefusal)
        throws(AuthorizationRequestRejection) -> String?
    {
        let thumbprint = query.single("dpop_jkt")
        if let thumbprint, !isSHA256Digest(thumbprint) {
            throw refusal(
                OAuthErrorCode.invalidRequest,
                "dpop_jkt must be a JWK SHA-256 thumbprint (RFC 9449 section 10, RFC 7638)")
        }
        return thumbprint
    }

    /// The method of a request's PKCE challenge (RFC 7636 §4.3), or why the challenge is
    /// refused, as an `invalid_request` description: a decision that needs no issuer.
    ///
    /// Only `S256` is accepted (RFC 9700 §2.1.1), and a public client must send a challenge
    /// (RFC 7636 §4.4.1, RFC 8252 §8.1), unless the tenant deviates: `pkce-plain-allowed` also
    /// takes `plain` and a challenge without a method (which means plain, RFC 7636 §4.3);
    /// `pkce-optional` lets a public client leave the challenge out.
    static func checkCodeChallenge(
        _ challenge: String?, method: String?, client: ClientRegistration, tenant: Tenant
    ) throws(ChallengeRefusal) -> CodeChallengeMethod {
        guard let challenge else {
            if method != nil {
                throw ChallengeRefusal("code_challenge_method is given without code_challenge")
            }
            if client.isPublic, !tenant.deviates(.pkceOptional) {
                throw ChallengeRefusal(
                    "code_challenge is required for public clients (RFC 7636 section 4.4.1, RFC 8252 section 8.1)"
                )
            }
            return .s256
        }
        let plainAllowed = tenant.deviates(.pkcePlainAllowed)
        // RFC 7636 §4.3: a missing method means plain.
        guard method != nil || plainAllowed else {
            throw ChallengeRefusal(
                "code_challenge_method is missing, which means plain (RFC 7636 section 4.3); only S256 is supported"
            )
        }
        guard let parsed = CodeChallengeMethod(parameter: method), parsed == .s256 || plainAllowed else {
            throw ChallengeRefusal(
                "code_challenge_method must be S256; plain is not supported (RFC 9700 section 2.1.1)")
        }
        guard parsed.isWellFormed(challenge: challenge) else {
            throw ChallengeRefusal(
                parsed == .s256
                    ? "code_challenge must be BASE64URL(SHA256(code_verifier)): 43 characters (RFC 7636 section 4.2)"
                    : "a plain code_challenge is the code_verifier: 43 to 128 characters of [A-Za-z0-9-._~] (RFC 7636 section 4.1)"
            )
        }
        return parsed
    }

    /// Why `checkCodeChallenge` refused a challenge.
    struct ChallengeRefusal: Error, Sendable {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether `text` is the canonical unpadded base64url encoding of 32 bytes (a SHA-256 output).
    static func isSHA256Digest(_ text: String) -> Bool {
        text.utf8.count == 43 && (try? Base64URL.decode(text))?.count == SHA256.digestSize
    }
}

/// An `/authorize` query's parameters with a value: RFC 6749 §3.1 treats a parameter sent
/// without a value as omitted.
private struct AuthorizeQuery {
    let pairs: [FormParameters.Pair]

    init(_ query: FormParameters) { pairs = query.pairs.filter { !$0.value.isEmpty } }

    func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// The first value of `name`; a repeated one is refused by `checkParameterCounts` first.
    func single(_ name: String) -> String? { values(name).first }
}

/// Where refusals go once the client and its redirect URI are trusted: to that URI, with the
/// request's `state` (RFC 6749 §4.1.2.1).
private struct AuthorizeRefusal {
    let redirectURI: String
    let state: String?

    func callAsFunction(_ code: String, _ description: String) -> AuthorizationRequestRejection {
        .redirect(OAuthError(code, description), redirectURI: redirectURI, state: state)
    }
}
