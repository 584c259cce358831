import HTTPCore
import OAuthCore

// Owned by the authorize/login/consent/logout work: RFC 6749 §4.1, OpenID Connect Core §3.1.2,
// RP-Initiated Logout 1.0.
extension Issuer {
    func authorize(_ request: HTTPRequest) async -> HTTPResponse {
        OAuthError("temporarily_unavailable", "authorize is being built", status: 501).response
    }

    func submitLogin(_ request: HTTPRequest) async -> HTTPResponse {
        OAuthError("temporarily_unavailable", "login is being built", status: 501).response
    }

    func submitConsent(_ request: HTTPRequest) async -> HTTPResponse {
        OAuthError("temporarily_unavailable", "consent is being built", status: 501).response
    }

    func logout(_ request: HTTPRequest) async -> HTTPResponse {
        OAuthError("temporarily_unavailable", "logout is being built", status: 501).response
    }
}
