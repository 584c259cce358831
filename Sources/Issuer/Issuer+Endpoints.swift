import HTTPCore
import JSON
import OAuthCore

extension Issuer {
    typealias Endpoint = @Sendable (Issuer, HTTPRequest) async -> HTTPResponse

    /// Paths at Auth0's places, all advertised in discovery; `/_admin/` is the test control API.
    enum Path {
        static let discovery = "/.well-known/openid-configuration"
        static let jwks = "/.well-known/jwks.json"
        static let authorize = "/authorize"
        static let login = "/u/login"
        static let consent = "/u/consent"
        static let token = "/oauth/token"
        static let userInfo = "/userinfo"
        static let revoke = "/oauth/revoke"
        static let logout = "/oidc/logout"
    }

    /// Every endpoint by path and method.
    static let endpoints: [String: [HTTPMethod: Endpoint]] = [
        Path.discovery: [.get: { issuer, request in issuer.discoveryDocument(request) }],
        Path.jwks: [.get: { issuer, _ in issuer.keySet() }],
        Path.authorize: [.get: { issuer, request in await issuer.authorize(request) }],
        Path.login: [.post: { issuer, request in await issuer.submitLogin(request) }],
        Path.consent: [.post: { issuer, request in await issuer.submitConsent(request) }],
        Path.token: [.post: { issuer, request in await issuer.token(request) }],
        Path.userInfo: [
            .get: { issuer, request in await issuer.userInfo(request) },
            .post: { issuer, request in await issuer.userInfo(request) },
        ],
        Path.revoke: [.post: { issuer, request in await issuer.revoke(request) }],
        Path.logout: [
            .get: { issuer, request in await issuer.logout(request) },
            .post: { issuer, request in await issuer.logout(request) },
        ],
        "/_admin/reset": [.post: { issuer, request in issuer.adminReset(request) }],
        "/_admin/users": [
            .get: { issuer, request in issuer.adminListUsers(request) },
            .post: { issuer, request in issuer.adminCreateUser(request) },
        ],
        "/_admin/clients": [
            .get: { issuer, request in issuer.adminListClients(request) },
            .post: { issuer, request in issuer.adminCreateClient(request) },
        ],
        "/_admin/tokens": [.post: { issuer, request in issuer.adminMintRefreshTokens(request) }],
        "/_admin/keys/rotate": [.post: { issuer, request in issuer.adminRotateKeys(request) }],
        "/_admin/clock": [.post: { issuer, request in issuer.adminClock(request) }],
        "/_admin/requests": [.get: { issuer, request in issuer.adminRequests(request) }],
        "/_admin/faults": [
            .post: { issuer, request in issuer.adminAddFault(request) },
            .delete: { issuer, request in issuer.adminClearFaults(request) },
            .get: { issuer, request in issuer.adminListFaults(request) },
        ],
    ]

    func url(_ path: String) -> String { identifier + path }
}
