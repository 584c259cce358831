import HTTPCore
import JSON
import OAuthCore

extension Issuer {
    /// How an endpoint answers: on the spot, or (a token exchange) with work left for later.
    typealias Endpoint = @Sendable (Issuer, HTTPRequest) -> ImmediateAnswer

    /// An endpoint that always answers on the spot.
    static func answered(_ answer: @escaping @Sendable (Issuer, HTTPRequest) -> HTTPResponse) -> Endpoint {
        { issuer, request in .response(answer(issuer, request)) }
    }

    /// Paths at Auth0's places, all advertised in discovery (`/par` when the tenant serves
    /// pushed requests); `/_admin/` is the test control API.
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
        /// RFC 9126 §2, advertised only when the tenant serves pushed requests. Not at Auth0's
        /// place (`/oauth/par`): a client takes it from discovery (RFC 9126 §5).
        static let pushedAuthorization = "/par"
    }

    /// Every endpoint by path and method.
    static let endpoints: [String: [HTTPMethod: Endpoint]] = [
        Path.discovery: [.get: answered { issuer, request in issuer.discoveryDocument(request) }],
        Path.jwks: [.get: answered { issuer, _ in issuer.keySet() }],
        Path.authorize: [.get: answered { issuer, request in issuer.authorize(request) }],
        Path.login: [.post: answered { issuer, request in issuer.submitLogin(request) }],
        Path.consent: [
            .get: answered { issuer, request in issuer.showConsent(request) },
            .post: answered { issuer, request in issuer.submitConsent(request) },
        ],
        Path.token: [.post: { issuer, request in issuer.token(request) }],
        Path.userInfo: [
            .get: answered { issuer, request in issuer.userInfo(request) },
            .post: answered { issuer, request in issuer.userInfo(request) },
        ],
        Path.revoke: [.post: answered { issuer, request in issuer.revoke(request) }],
        Path.pushedAuthorization: [
            .post: answered { issuer, request in issuer.pushAuthorizationRequest(request) }
        ],
        Path.logout: [
            .get: answered { issuer, request in issuer.logout(request) },
            .post: answered { issuer, request in issuer.logout(request) },
        ],
        "/_admin/reset": [.post: answered { issuer, request in issuer.adminReset(request) }],
        "/_admin/users": [
            .get: answered { issuer, request in issuer.adminListUsers(request) },
            .post: answered { issuer, request in issuer.adminCreateUser(request) },
        ],
        "/_admin/clients": [
            .get: answered { issuer, request in issuer.adminListClients(request) },
            .post: answered { issuer, request in issuer.adminCreateClient(request) },
        ],
        "/_admin/tokens": [.post: answered { issuer, request in issuer.adminMintRefreshTokens(request) }],
        "/_admin/keys/rotate": [.post: answered { issuer, request in issuer.adminRotateKeys(request) }],
        "/_admin/clock": [.post: answered { issuer, request in issuer.adminClock(request) }],
        "/_admin/requests": [.get: answered { issuer, request in issuer.adminRequests(request) }],
        "/_admin/faults": [
            .post: answered { issuer, request in issuer.adminAddFault(request) },
            .delete: answered { issuer, request in issuer.adminClearFaults(request) },
            .get: answered { issuer, request in issuer.adminListFaults(request) },
        ],
    ]

    func url(_ path: String) -> String { identifier + path }
}
