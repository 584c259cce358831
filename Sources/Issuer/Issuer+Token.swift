import HTTPCore
import OAuthCore

// Owned by the token endpoint work: RFC 6749 §4.1.3, §6; RFC 8693; RFC 7009; OIDC Core §5.3.
extension Issuer {
    func token(_ request: HTTPRequest) async -> HTTPResponse {
        OAuthError("temporarily_unavailable", "token is being built", status: 501).response
    }

    func userInfo(_ request: HTTPRequest) async -> HTTPResponse {
        OAuthError("temporarily_unavailable", "userinfo is being built", status: 501).response
    }

    func revoke(_ request: HTTPRequest) async -> HTTPResponse {
        OAuthError("temporarily_unavailable", "revocation is being built", status: 501).response
    }
}
