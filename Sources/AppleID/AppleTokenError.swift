public import Errors
public import HTTPCore
public import JOSE

/// Why a call to Apple's endpoints (`AppleTokenClient`, `AppleKeyFetcher`) gave no result.
///
/// When Apple answered with an error, `appleError` and `appleErrorDescription` carry its
/// `error` and `error_description` word for word, so that an issuer can pass them on
/// (an Auth0-style issuer answers `invalid_grant` for a reused or expired code).
public struct AppleTokenError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// Apple answered with an OAuth error (`appleError` says which).
        case rejected
        /// The request did not get an answer (`transportError` says why).
        case transportFailed
        /// The answer is not what Apple sends (not JSON, a required member missing).
        case invalidResponse
        /// The identity token does not verify (`tokenError` says why).
        case invalidIdentityToken
        /// The client secret could not be signed.
        case clientSecretFailed
    }

    public let code: Code
    public let message: String
    /// The HTTP status of Apple's answer, when there was one.
    public let status: Int?
    /// Apple's `error` (`invalid_grant`, `invalid_client`…), for `rejected`.
    public let appleError: String?
    /// Apple's `error_description` ("The code has already been used."), when it sent one.
    public let appleErrorDescription: String?
    public let transportError: HTTPError?
    public let tokenError: JOSEError?

    public init(
        _ code: Code, _ message: String, status: Int? = nil, appleError: String? = nil,
        appleErrorDescription: String? = nil, transportError: HTTPError? = nil, tokenError: JOSEError? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.appleError = appleError
        self.appleErrorDescription = appleErrorDescription
        self.transportError = transportError
        self.tokenError = tokenError
    }

}
