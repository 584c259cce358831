/// A rule of the specifications the embedded issuer can be told to break, for good: each case
/// is what some real issuer does (or can be configured to do), so that scenarios can test an
/// SDK against a misconfigured issuer, and each check of `signinsim audit` has an issuer on
/// which it fails (docs/audit.md, "Every check can fail").
///
/// Unlike an `IssuerFault`, which applies to the next N occurrences, a deviation is a setting of
/// the tenant (`deviations:` in a tenant file) and holds for the issuer's life.
public enum IssuerDeviation: String, Sendable, Hashable, CaseIterable {
    // MARK: Discovery (OpenID Connect Discovery 1.0 §3, RFC 8414 §2)

    /// Discovery leaves out `subject_types_supported`, which Discovery §3 requires.
    case discoveryOmitsSubjectTypes = "discovery-omits-subject-types"
    /// Discovery leaves out `code_challenge_methods_supported` (RFC 8414 §2), so a client
    /// cannot learn that PKCE is supported.
    case discoveryOmitsPKCEMethods = "discovery-omits-pkce-methods"
    /// Discovery lists `plain` beside `S256` (what is accepted does not change): RFC 9700
    /// §2.1.1 asks for S256, and advertising `plain` invites clients to use it.
    case discoveryAdvertisesPlain = "discovery-advertises-plain"
    /// Neither `authorization_response_iss_parameter_supported` in discovery nor `iss` in
    /// authorization responses (RFC 9207 §2, §3): mix-up attacks go undetected.
    case noIssParameter = "no-iss-parameter"
    /// Discovery promises `iss` in authorization responses (RFC 9207 §3), but they carry none.
    case issParameterOmitted = "iss-parameter-omitted"
    /// Discovery leaves out `end_session_endpoint` (RP-Initiated Logout 1.0 §2.1); the endpoint
    /// is still served.
    case noEndSessionEndpoint = "no-end-session-endpoint"
    /// Discovery leaves out `revocation_endpoint` (RFC 8414 §2); the endpoint is still served.
    case noRevocationEndpoint = "no-revocation-endpoint"
    /// The JWK set publishes the signing key's private members (`d`, RFC 7518 §6.2.2.1) beside
    /// its public ones: anyone can then mint the issuer's ID tokens.
    case jwksPrivateMembers = "jwks-private-members"

    // MARK: Authorization (RFC 6749 §4.1, RFC 7636, RFC 8252, RFC 9700)

    /// A public client may leave out `code_challenge`, and its code is then redeemed without a
    /// verifier (RFC 9700 §2.1.1 and RFC 8252 §8.1 require PKCE of native apps).
    case pkceOptional = "pkce-optional"
    /// `code_challenge_method=plain` (or none, which means plain: RFC 7636 §4.3) is accepted and
    /// the verifier compared as plain text (RFC 9700 §2.1.1: use S256).
    case pkcePlainAllowed = "pkce-plain-allowed"
    /// A token request's `code_verifier` is ignored when the code was issued without a
    /// challenge, the PKCE downgrade that RFC 9700 §2.1.1 says the issuer must prevent.
    case pkceDowngradeAllowed = "pkce-downgrade-allowed"
    /// A redirect URI that is a registered one plus more path (`…/callback/more`) is accepted:
    /// prefix matching, which RFC 9700 §4.1.3 forbids (exact string matching).
    case redirectURIExtraPath = "redirect-uri-extra-path"
    /// A registered redirect URI with a trailing slash added is accepted (RFC 9700 §4.1.3).
    case redirectURITrailingSlash = "redirect-uri-trailing-slash"
    /// A registered redirect URI with query parameters added is accepted (RFC 9700 §4.1.3).
    case redirectURIExtraQuery = "redirect-uri-extra-query"
    /// Redirect URIs are compared without regard to case (RFC 9700 §4.1.3: exact string
    /// matching).
    case redirectURICaseInsensitive = "redirect-uri-case-insensitive"
    /// A redirect URI with user information before its host (`scheme://someone@host/…`) is
    /// accepted as the URI without it (RFC 3986 §3.2.1, §7.5; RFC 9700 §4.1.3).
    case redirectURIUserInfo = "redirect-uri-user-info"
    /// A loopback redirect URI must use the registered port: RFC 8252 §7.3 says any port must
    /// be accepted, since the app listens on one the system hands out.
    case loopbackPortExact = "loopback-port-exact"
    /// `http://localhost` is accepted wherever `http://127.0.0.1` or `http://[::1]` is
    /// registered, on any port, and may be registered: RFC 8252 §8.3 says NOT RECOMMENDED, and
    /// Google and Auth0 accept it, which some native clients (oidc-agent) rely on.
    case allowLocalhostRedirects = "allow-localhost-redirects"
    /// A registered redirect URI of a private-use scheme (`com.example.app:/callback`, RFC 8252
    /// §7.1) is refused at the authorization endpoint, as by an issuer that lets apps use only
    /// `https` redirects (the FAPI 1.0 Advanced profile requires that of its servers): an app
    /// whose sheet waits for its own scheme never gets the code.
    case privateUseRedirectsRefused = "private-use-redirects-refused"
    /// Errors that RFC 6749 §4.1.2.1 sends back to the client's redirect URI (an unknown scope,
    /// an unsupported response type) are shown to the user as a page instead.
    case errorsShownAsPage = "errors-shown-as-page"

    // MARK: Token endpoint (RFC 6749 §4.1.3, §5, §6; OpenID Connect Core §3.1.3)

    /// An authorization code may be redeemed again and again within its lifetime (RFC 6749
    /// §4.1.2: once).
    case codeReusable = "code-reusable"
    /// A code's second redemption is refused, but what its first one issued stays valid (RFC
    /// 6749 §4.1.2: SHOULD revoke).
    case codeReuseKeepsTokens = "code-reuse-keeps-tokens"
    /// The token request's `redirect_uri` is not compared with the authorization request's
    /// (RFC 6749 §4.1.3).
    case codeIgnoresRedirectURI = "code-ignores-redirect-uri"
    /// The `code_verifier` is required but not compared with the challenge (RFC 7636 §4.6).
    case codeIgnoresVerifier = "code-ignores-verifier"
    /// A code issued to one client is redeemed by another one (RFC 6749 §4.1.3).
    case codeIgnoresClient = "code-ignores-client"
    /// `client_secret_post` is advertised, but a client authenticating with it is refused with
    /// `invalid_client` (OpenID Connect Core §9).
    case clientSecretPostRefused = "client-secret-post-refused"
    /// ID tokens carry no `auth_time`, even when the request had `max_age` (OpenID Connect Core
    /// §3.1.2.1, §2: then REQUIRED).
    case authTimeOmitted = "auth-time-omitted"
    /// A refresh token issued to one client is redeemed by another (RFC 6749 §6).
    case refreshIgnoresClient = "refresh-ignores-client"

    // MARK: UserInfo, revocation, logout, DPoP

    /// A UserInfo request without an access token is answered 401 with no `WWW-Authenticate`
    /// header (RFC 6750 §3: MUST).
    case userInfoNoChallenge = "userinfo-no-challenge"
    /// Revocation answers 200 and revokes nothing (RFC 7009 §2.1).
    case revocationIgnored = "revocation-ignored"
    /// Revoking a token the issuer does not know is answered 400 `invalid_request` (RFC 7009
    /// §2.2: 200, since the client cannot act on it).
    case revocationRejectsUnknown = "revocation-rejects-unknown"
    /// A `post_logout_redirect_uri` that starts with a registered one is redirected to
    /// (RP-Initiated Logout 1.0 §3: it must exactly match a registered one).
    case postLogoutRedirectPrefix = "post-logout-redirect-prefix"
    /// DPoP proofs at the token endpoint are ignored: tokens are Bearer tokens, bound to no key
    /// (RFC 9449 §5), though discovery advertises DPoP.
    case dpopIgnored = "dpop-ignored"
    /// A public client's refresh token is not bound to the DPoP key it was issued with: a proof
    /// of any key refreshes it (RFC 9449 §5).
    case dpopRefreshUnbound = "dpop-refresh-unbound"
    /// DPoP proofs must carry a server nonce (as with `require_dpop_nonce`), but any value is
    /// taken for one: a nonce the issuer never issued passes, so nonces stop bounding a
    /// proof's age (RFC 9449 §8, §11.1).
    case dpopNonceUnchecked = "dpop-nonce-unchecked"
    /// `dpop_jkt` at the authorization endpoint is not bound to the code: the code is redeemed
    /// with a proof of another key (RFC 9449 §10).
    case dpopJKTIgnored = "dpop-jkt-ignored"

    // MARK: Pushed authorization requests (RFC 9126)

    /// A `request_uri` is not used up at the authorization endpoint: it may be used again until it
    /// expires (RFC 9126 §4: it SHOULD be good for one authorization request).
    case parRequestURIReusable = "par-request-uri-reusable"
    /// The authorization endpoint honours a `request_uri` whatever `client_id` comes with it, or
    /// none (RFC 9126 §4: it MUST be the client that pushed the request).
    case parIgnoresClientID = "par-ignores-client-id"
    /// The pushed authorization request endpoint accepts any `redirect_uri` (201), though the
    /// authorization endpoint still checks it when the `request_uri` is used (RFC 9126 §2.1: the
    /// push is validated as an authorization request).
    case parSkipsRedirectURICheck = "par-skips-redirect-uri-check"
    /// The 201 answer to a push has no `expires_in` (RFC 9126 §2.2: REQUIRED).
    case parOmitsExpiresIn = "par-omits-expires-in"
    /// Discovery says `require_pushed_authorization_requests: true` (policy `required`), but
    /// authorization requests that were not pushed are served anyway (RFC 9126 §5).
    case parRequiredNotEnforced = "par-required-not-enforced"
}
