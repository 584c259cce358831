/// Names of the parameters of OAuth 2.0 and OpenID Connect requests and responses, in forms,
/// query strings and JSON bodies alike: the ones that the SDK, the issuer and Apple's token
/// endpoint share.
public enum OAuthParameter {
    /// The client identifier (RFC 6749 §2.2).
    public static let clientID = "client_id"
    /// The client password of `client_secret_post` (RFC 6749 §2.3.1).
    public static let clientSecret = "client_secret"
    /// A JWT that authenticates the client (RFC 7521 §4.2, RFC 7523 §2.2).
    public static let clientAssertion = "client_assertion"
    /// The format of `client_assertion` (RFC 7521 §4.2).
    public static let clientAssertionType = "client_assertion_type"
    /// The grant a token request uses (RFC 6749 §4.1.3, §6); its values are `GrantType`.
    public static let grantType = "grant_type"
    /// What an authorization request asks for, e.g. `code` (RFC 6749 §3.1.1).
    public static let responseType = "response_type"
    /// The authorization code: in the redirect and in the token request (RFC 6749 §4.1.2, §4.1.3).
    public static let code = "code"
    /// Where the authorization server sends the user back (RFC 6749 §3.1.2).
    public static let redirectURI = "redirect_uri"
    /// The PKCE verifier of the token request (RFC 7636 §4.5).
    public static let codeVerifier = "code_verifier"
    /// The PKCE challenge of the authorization request (RFC 7636 §4.3).
    public static let codeChallenge = "code_challenge"
    /// How the PKCE challenge was derived (RFC 7636 §4.3).
    public static let codeChallengeMethod = "code_challenge_method"
    /// The scope requested or granted (RFC 6749 §3.3, §5.1).
    public static let scope = "scope"
    /// The client's value echoed in the redirect (RFC 6749 §4.1.1, §4.1.2).
    public static let state = "state"
    /// The value that binds an ID token to the authorization request (OpenID Connect Core
    /// §3.1.2.1).
    public static let nonce = "nonce"
    /// The access token of a token response (RFC 6749 §5.1).
    public static let accessToken = "access_token"
    /// The type of the access token, e.g. `Bearer` (RFC 6749 §5.1, §7.1).
    public static let tokenType = "token_type"
    /// The lifetime of the access token in seconds (RFC 6749 §5.1).
    public static let expiresIn = "expires_in"
    /// The refresh token: in a token response and in the refresh request (RFC 6749 §5.1, §6).
    public static let refreshToken = "refresh_token"
    /// The ID token of an OpenID Connect token response (OpenID Connect Core §3.1.3.3).
    public static let idToken = "id_token"
    /// The error code of an error response (RFC 6749 §4.1.2.1, §5.2); its values are
    /// `OAuthErrorCode`.
    public static let error = "error"
    /// Human-readable text about an error (RFC 6749 §4.1.2.1, §5.2).
    public static let errorDescription = "error_description"
    /// The token to revoke (RFC 7009 §2.1).
    public static let token = "token"
    /// Which kind of token `token` is (RFC 7009 §2.1).
    public static let tokenTypeHint = "token_type_hint"
    /// The token a token exchange is about (RFC 8693 §2.1).
    public static let subjectToken = "subject_token"
    /// The type of `subject_token` (RFC 8693 §2.1); its values are `TokenTypeIdentifier`.
    public static let subjectTokenType = "subject_token_type"
    /// The service a token exchange asks a token for (RFC 8693 §2.1).
    public static let audience = "audience"
    /// How the end user must be prompted (OpenID Connect Core §3.1.2.1).
    public static let prompt = "prompt"
    /// The longest time since the user last authenticated (OpenID Connect Core §3.1.2.1).
    public static let maxAge = "max_age"
    /// A hint of the login identifier (OpenID Connect Core §3.1.2.1).
    public static let loginHint = "login_hint"
    /// The user's preferred languages for the pages (OpenID Connect Core §3.1.2.1).
    public static let uiLocales = "ui_locales"
    /// The ID token a logout request names the session by (OpenID Connect RP-Initiated
    /// Logout §2).
    public static let idTokenHint = "id_token_hint"
    /// Where to send the user after logout (OpenID Connect RP-Initiated Logout §2).
    public static let postLogoutRedirectURI = "post_logout_redirect_uri"
}

/// Error codes of OAuth 2.0 error responses (RFC 6749 §4.1.2.1, §5.2) and their extensions.
public enum OAuthErrorCode {
    /// The request is malformed or lacks a parameter (RFC 6749 §5.2).
    public static let invalidRequest = "invalid_request"
    /// Client authentication failed (RFC 6749 §5.2).
    public static let invalidClient = "invalid_client"
    /// The grant or refresh token is invalid, expired, revoked or was issued to another client
    /// (RFC 6749 §5.2).
    public static let invalidGrant = "invalid_grant"
    /// The client may not use this grant (RFC 6749 §5.2).
    public static let unauthorizedClient = "unauthorized_client"
    /// The server does not support the grant type (RFC 6749 §5.2).
    public static let unsupportedGrantType = "unsupported_grant_type"
    /// The scope is invalid, unknown or too wide (RFC 6749 §5.2).
    public static let invalidScope = "invalid_scope"
    /// The user or server refused the authorization (RFC 6749 §4.1.2.1).
    public static let accessDenied = "access_denied"
    /// The server failed unexpectedly (RFC 6749 §4.1.2.1).
    public static let serverError = "server_error"
    /// The server is overloaded or down for a while (RFC 6749 §4.1.2.1).
    public static let temporarilyUnavailable = "temporarily_unavailable"
    /// The target of a token exchange is unacceptable (RFC 8693 §2.2.2).
    public static let invalidTarget = "invalid_target"
    /// The access token is expired, revoked or malformed (RFC 6750 §3.1).
    public static let invalidToken = "invalid_token"
    /// The DPoP proof is invalid (RFC 9449 §7.1).
    public static let invalidDPoPProof = "invalid_dpop_proof"
    /// The server requires a DPoP nonce, given in `DPoP-Nonce` (RFC 9449 §8, §9).
    public static let useDPoPNonce = "use_dpop_nonce"
}
