public import HTTPCore
import JSON
import OAuthCore

/// A successful token response (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
public struct TokenResponse: Sendable, Hashable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int64?
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String?

    /// Reads a token endpoint answer: a JSON object with `access_token` and `token_type`, or an
    /// RFC 6749 §5.2 error, which becomes `tokenRequestFailed` with the issuer's `error` code.
    public init(response: HTTPResponse, endpoint: String) throws(SignInError) {
        let object: [String: JSONValue]
        do throws(HTTPError) {
            guard case .object(let members) = try response.jsonBody() else {
                throw HTTPError(.malformedBody, "the body is not a JSON object")
            }
            object = members
        } catch {
            if response.status >= 500 {
                throw SignInError(
                    .transport, "\(endpoint) answered \(response.status) without a JSON error",
                    status: response.status)
            }
            throw SignInError(
                .invalidTokenResponse, "\(endpoint) answered \(response.status): \(error.message)",
                status: response.status)
        }
        guard response.status == 200 else {
            let code = object[OAuthParameter.error]?.stringValue
            let description =
                object[OAuthParameter.errorDescription]?.stringValue.map { ": \($0.prefix(300))" } ?? ""
            if code == nil, response.status >= 500 {
                throw SignInError(
                    .transport, "\(endpoint) answered \(response.status)", status: response.status)
            }
            throw SignInError(
                .tokenRequestFailed,
                "\(endpoint) answered \(response.status) \(code ?? "without an error code")\(description)",
                oauthError: code, status: response.status)
        }
        guard let accessToken = object[OAuthParameter.accessToken]?.stringValue, !accessToken.isEmpty else {
            throw SignInError(
                .invalidTokenResponse, "\(endpoint) answered 200 without access_token", status: 200)
        }
        guard let tokenType = object[OAuthParameter.tokenType]?.stringValue else {
            throw SignInError(
                .invalidTokenResponse, "\(endpoint) answered 200 without token_type", status: 200)
        }
        self.accessToken = accessToken
        self.tokenType = tokenType
        expiresIn = object[OAuthParameter.expiresIn]?.int64Value
        refreshToken = object[OAuthParameter.refreshToken]?.stringValue
        idToken = object[OAuthParameter.idToken]?.stringValue
        scope = object[OAuthParameter.scope]?.stringValue
    }
}
