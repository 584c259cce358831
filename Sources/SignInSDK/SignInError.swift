public import Errors

/// Every failure the SDK reports to the app, with a stable code per cause.
///
/// The split follows the SDKs the model copies: protocol errors from the issuer (RFC 6749 §5.2)
/// are kept apart from transport errors, because a refresh that fails with `invalid_grant` ends
/// the session while a timeout must not (AppAuth, Auth0.swift). Messages never carry a whole
/// token or secret.
public struct SignInError: CodedError {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// `configure(options:)` was not called, or its options are unusable.
        case notConfigured = "not_configured"
        case invalidConfiguration = "invalid_configuration"
        /// Discovery or JWKS could not be fetched or parsed.
        case discoveryFailed = "discovery_failed"
        /// The user closed the web sheet (ASWebAuthenticationSessionError.canceledLogin).
        case canceledLogin = "canceled_login"
        /// The web session could not be presented (not foreground-active, error 3).
        case presentationFailed = "presentation_failed"
        /// A previous web authentication transaction is still active.
        case transactionActiveAlready = "transaction_active_already"
        /// The web session failed for another reason (network, page, timeout).
        case webSessionFailed = "web_session_failed"
        /// The callback carried a `state` that matches no pending sign-in (or one already used).
        case stateMismatch = "state_mismatch"
        /// The callback has no `state`.
        case missingState = "missing_state"
        /// The callback's RFC 9207 `iss` is not the configured issuer.
        case issuerMismatch = "issuer_mismatch"
        /// The authorization server redirected back with `error=` (RFC 6749 §4.1.2.1).
        case authorizationDenied = "authorization_denied"
        /// The callback is not for this app's redirect URI, or lacks a code.
        case invalidCallback = "invalid_callback"
        /// The token endpoint answered an OAuth error (RFC 6749 §5.2).
        case tokenRequestFailed = "token_request_failed"
        /// The token endpoint's success response is unusable.
        case invalidTokenResponse = "invalid_token_response"
        /// The ID token failed verification (OIDC Core §3.1.3.7).
        case idTokenInvalid = "id_token_invalid"
        /// The ID token verified, but its `at_hash` or `c_hash` does not match the access token
        /// or the code it came with (OIDC Core §3.1.3.8, §3.3.2.10), or the `strict` profile
        /// found no `at_hash` next to an access token: the tokens were not issued together.
        case tokenHashMismatch = "token_hash_mismatch"
        /// A server refused a DPoP proof, and its `Date` shows the device's clock so far from
        /// the server's that the proof's `iat` is the likely reason (RFC 9449 §11.1); the SDK
        /// keeps its own clock (the default profile) or has already corrected it once.
        case dpopClockSkew = "dpop_clock_skew"
        /// The network failed: offline, timeout, lost response, 5xx.
        case transport = "transport"
        /// No session is stored.
        case noSession = "no_session"
        /// A session exists but holds no refresh token.
        case noRefreshToken = "no_refresh_token"
        /// Refreshing was refused by the issuer (`invalid_grant`): the session is over.
        case sessionExpired = "session_expired"
        /// Storage failed (for instance the keychain is locked, errSecInteractionNotAllowed).
        case storage = "storage"
        /// Native Sign in with Apple failed on the device, or Apple could not say what state a
        /// user's credential is in.
        case appleAuthorizationFailed = "apple_authorization_failed"
        /// A session is stored, but it did not come from Sign in with Apple: there is no Apple
        /// user identifier to ask Apple about.
        case noAppleUser = "no_apple_user"
    }

    public let code: Code
    public let message: String
    /// The OAuth `error` code when the issuer gave one (`invalid_grant`, `access_denied`, …).
    public let oauthError: String?
    /// The HTTP status of the response behind the error, if any.
    public let status: Int?

    public init(_ code: Code, _ message: String, oauthError: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.oauthError = oauthError
        self.status = status
    }

    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let oauthError { text += " (\(oauthError))" }
        return text
    }
}
