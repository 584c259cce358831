import HTTPCore
import JSON
import OAuthCore

extension Issuer {
    /// How an endpoint answers: on the spot, or, for a request it declines on the spot, by
    /// waiting (only the token endpoint declines any: token exchanges).
    struct Endpoint: Sendable {
        /// The answer without waiting, or `nil` with nothing done (see `ImmediateHTTPHandler`).
        var immediate: @Sendable (Issuer, HTTPRequest) -> HTTPResponse?
        /// The whole answer, waiting when the request needs it.
        var waiting: @Sendable (Issuer, HTTPRequest) async -> HTTPResponse

        /// An endpoint that never waits.
        static func immediate(_ answer: @escaping @Sendable (Issuer, HTTPRequest) -> HTTPResponse) -> Endpoint
        {
            Endpoint(immediate: { issuer, request in answer(issuer, request) }, waiting: { answer($0, $1) })
        }
    }

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
        Path.discovery: [.get: .immediate { issuer, request in issuer.discoveryDocument(request) }],
        Path.jwks: [.get: .immediate { issuer, _ in issuer.keySet() }],
        Path.authorize: [.get: .immediate { issuer, request in issuer.authorize(request) }],
        Path.login: [.post: .immediate { issuer, request in issuer.submitLogin(request) }],
        Path.consent: [.post: .immediate { issuer, request in issuer.submitConsent(request) }],
        Path.token: [
            .post: Endpoint(
                immediate: { issuer, request in issuer.tokenWithoutWaiting(request) },
                waiting: { issuer, request in await issuer.token(request) })
        ],
        Path.userInfo: [
            .get: .immediate { issuer, request in issuer.userInfo(request) },
            .post: .immediate { issuer, request in issuer.userInfo(request) },
        ],
        Path.revoke: [.post: .immediate { issuer, request in issuer.revoke(request) }],
        Path.logout: [
            .get: .immediate { issuer, request in issuer.logout(request) },
            .post: .immediate { issuer, request in issuer.logout(request) },
        ],
        "/_admin/reset": [.post: .immediate { issuer, request in issuer.adminReset(request) }],
        "/_admin/users": [
            .get: .immediate { issuer, request in issuer.adminListUsers(request) },
            .post: .immediate { issuer, request in issuer.adminCreateUser(request) },
        ],
        "/_admin/clients": [
            .get: .immediate { issuer, request in issuer.adminListClients(request) },
            .post: .immediate { issuer, request in issuer.adminCreateClient(request) },
        ],
        "/_admin/tokens": [.post: .immediate { issuer, request in issuer.adminMintRefreshTokens(request) }],
        "/_admin/keys/rotate": [.post: .immediate { issuer, request in issuer.adminRotateKeys(request) }],
        "/_admin/clock": [.post: .immediate { issuer, request in issuer.adminClock(request) }],
        "/_admin/requests": [.get: .immediate { issuer, request in issuer.adminRequests(request) }],
        "/_admin/faults": [
            .post: .immediate { issuer, request in issuer.adminAddFault(request) },
            .delete: .immediate { issuer, request in issuer.adminClearFaults(request) },
            .get: .immediate { issuer, request in issuer.adminListFaults(request) },
        ],
    ]

    func url(_ path: String) -> String { identifier + path }
}
