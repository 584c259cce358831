/// Misbehaviour the issuer can be told to show, for the next N occurrences.
///
/// The `rp-…` faults are the OpenID Foundation RP conformance tests (`docs/conformance.md`): each
/// makes the issuer send what a correct relying party must refuse (or, for `kid-absent-single`,
/// accept). The `http-…` faults break the transport instead. `logout-without-state` is a
/// lapse of real issuers that a relying party should tolerate; `logout-ends-nothing` one that
/// only a check after the sign-out can see.
public enum IssuerFault: String, Sendable, Hashable, CaseIterable {
    case idTokenIssuerMismatch = "rp-id_token-issuer-mismatch"
    case idTokenSubjectMissing = "rp-id_token-sub"
    case idTokenAudienceMismatch = "rp-id_token-aud"
    case idTokenAudienceMissing = "rp-id_token-aud-missing"
    case idTokenIssuedAtMissing = "rp-id_token-iat"
    case idTokenKidAbsentSingleKey = "rp-id_token-kid-absent-single-jwks"
    case idTokenKidAbsentMultipleKeys = "rp-id_token-kid-absent-multiple-jwks"
    case idTokenUnsigned = "rp-id_token-sig-none"
    case idTokenBadSignatureRS256 = "rp-id_token-bad-sig-rs256"
    case idTokenBadSignatureES256 = "rp-id_token-bad-sig-es256"
    case idTokenBadSignatureHS256 = "rp-id_token-bad-sig-hs256"
    case idTokenExpired = "rp-id_token-expired"
    case idTokenIssuedInFuture = "rp-id_token-iat-future"
    case idTokenNotYetValid = "rp-id_token-nbf-future"
    case nonceInvalid = "rp-nonce-invalid"
    /// The ID token's `at_hash` is not the access token's (a "1" appended). The conformance
    /// suite runs it for responses with an ID token and a token from the authorization endpoint
    /// (`OIDCCClientTestInvalidAtHashInIdToken`); here it spoils the token endpoint's ID token,
    /// whose `at_hash` a relying party checks when present (OpenID Connect Core §3.1.3.8).
    case idTokenBadAccessTokenHash = "rp-id_token-bad-at_hash"
    /// The ID token has no `at_hash` (`OIDCCClientTestMissingAtHashInIdToken`). From the token
    /// endpoint of the code flow that is allowed (Core §3.1.3.6): only a client that requires
    /// one (the SDK's `strict` profile) refuses it.
    case idTokenAccessTokenHashMissing = "rp-id_token-missing-at_hash"
    case userInfoBadSubject = "rp-userinfo-bad-sub-claim"
    case discoveryIssuerMismatch = "rp-discovery-issuer-not-matching-config"
    case keyRotation = "rp-key-rotation-op-sign-key"
    case refreshedIDTokenIssuerMismatch = "refresh-token-invalid-issuer"
    case refreshedIDTokenSubjectMismatch = "refresh-token-invalid-sub"
    /// The next post-logout redirects leave out the `state` the client sent, as issuers that
    /// relay a logout through another hop do (field bug 8; AppAuth-iOS#956).
    case logoutWithoutState = "logout-without-state"
    /// The next logouts end nothing: the browser's session stays, its cookie is not cleared,
    /// and the browser is redirected back with the `state` all the same, as an issuer that
    /// ignores the request (or cannot tie it to a session) does. RP-Initiated Logout 1.0 §3
    /// makes the redirect the answer to a logout carried out; this one proves the redirect is
    /// only an acknowledgement.
    case logoutEndsNothing = "logout-ends-nothing"
    /// The next authorization responses carry a `state` other than the one the client sent, as
    /// when the redirect back to the app is tampered with on the way: the client must refuse
    /// it (RFC 6749 §10.12).
    case callbackStateAltered = "callback-state-altered"
    /// The next consent refusals (`action=deny` on the consent form) are answered as approvals:
    /// the grant is recorded and a code goes back to the client, as at issuers that ignore their
    /// decline button. RFC 6749 §4.1.2.1 says a refusal is an `access_denied` error response.
    case consentRefusalIgnored = "consent-refusal-ignored"
    /// The next requests (to `path`) are answered with an RFC 6749 §5.2 error the step names
    /// (`error`, `error_description`, `status`): an issuer's answer the embedded one has no model
    /// of, as a capture recorded it.
    case oauthError = "oauth-error"
    case internalServerError = "http-500"
    case serviceUnavailable = "http-503"
    case rateLimited = "http-429"
    case delay = "http-delay"
    case dropConnection = "http-drop-connection"
    case htmlErrorPage = "http-html-error"
}
