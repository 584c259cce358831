import SignInSDK
import Testing

/// An error names its code, then the message, then the issuer's OAuth code.
@Test func signInErrorDescriptionCarriesTheOAuthCode() {
    let error = SignInError(
        .sessionExpired, "the issuer refused the refresh token", oauthError: "invalid_grant")
    #expect(error.description == "session_expired: the issuer refused the refresh token (invalid_grant)")
}
