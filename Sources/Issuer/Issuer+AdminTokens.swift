import HTTPCore
import JOSE
import JSON
import OAuthCore

extension Issuer {
    /// Most refresh tokens one `/_admin/tokens` request mints.
    static let adminTokenLimit = 200_000

    /// `POST /_admin/tokens` with `{"client_id", "email" | "user_id", "scope"?, "audience"?,
    /// "count"?, "dpop_jkt"?}`: mints refresh tokens directly, each in a family of its own, as
    /// if `count` devices had signed in; answers `{"refresh_tokens": […]}` (201).
    ///
    /// For load tests and scenarios that start signed in. `scope` defaults to
    /// `openid profile email offline_access`; `dpop_jkt` binds the tokens of a public client to
    /// a key, as a DPoP sign-in would. With `Accept: text/plain` the answer is one token a line.
    func adminMintRefreshTokens(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let body = try Issuer.adminBody(request)
            guard let clientID = body["client_id"]?.stringValue else {
                throw OAuthError.invalidRequest("client_id is required")
            }
            var count = 1
            if let value = body["count"] {
                guard let number = value.int64Value, number >= 1, number <= Int64(Issuer.adminTokenLimit)
                else {
                    throw OAuthError.invalidRequest(
                        "count must be an integer from 1 to \(Issuer.adminTokenLimit)")
                }
                count = Int(number)
            }
            let scopes = ScopeList.parse(body["scope"]?.stringValue ?? "openid profile email offline_access")
            guard !scopes.isEmpty, scopes.allSatisfy(ScopeList.isValidToken) else {
                throw OAuthError.invalidRequest("scope must be a space-separated list of scope tokens")
            }
            let audience = body["audience"]?.stringValue ?? tenant.defaultAudience
            if let audience, tenant.audience(audience) == nil {
                throw OAuthError.invalidRequest(
                    "audience \(OAuthRequestParameters.quoted(audience)) is not an API here")
            }
            var thumbprint: String?
            if let jkt = body["dpop_jkt"] {
                guard let text = jkt.stringValue, (try? Base64URL.decode(text))?.count == 32 else {
                    throw OAuthError.invalidRequest("dpop_jkt must be a base64url SHA-256 JWK thumbprint")
                }
                thumbprint = text
            }
            let (client, user) = state.withLock { state -> (ClientRegistration?, UserAccount?) in
                let user =
                    body["user_id"]?.stringValue.flatMap { state.users[$0] }
                    ?? body["email"]?.stringValue.flatMap { state.user(email: $0) }
                return (state.clients[clientID], user)
            }
            guard let client else {
                throw OAuthError.invalidRequest("unknown client \(OAuthRequestParameters.quoted(clientID))")
            }
            guard client.grantTypes.contains(GrantType.refreshToken) else {
                throw OAuthError.invalidRequest("client \(client.id) is not allowed the refresh_token grant")
            }
            guard let user else { throw OAuthError.invalidRequest("no user with that user_id or email") }
            let now = clock.now()
            let grant = TokenGrant(
                kind: .refresh, user: user, client: client, scopes: scopes, audience: audience, nonce: nil,
                authTime: now, sessionID: nil, dpopKeyThumbprint: thumbprint)
            var tokens: [JSONValue] = []
            tokens.reserveCapacity(count)
            // In batches, so that a large request does not hold the lock against live traffic.
            while tokens.count < count {
                let batch = min(count - tokens.count, 2048)
                tokens += state.withLock { state in
                    (0..<batch).map { _ in
                        .string(storeRefreshToken(grant, familyID: nil, now: now, in: &state).token)
                    }
                }
            }
            if let accept = request.headers["Accept"], MediaType.essence(accept) == "text/plain" {
                // One token a line: 100,000 tokens are 4.6 MB of JSON, more than JSONValue parses by default.
                let lines = tokens.compactMap(\.stringValue).joined(separator: "\n") + "\n"
                return .text(lines, status: 201)
            }
            return .json(
                [
                    "refresh_tokens": .array(tokens), "client_id": .string(client.id),
                    "user_id": .string(user.id),
                ],
                status: 201)
        } catch let error as OAuthError {
            return error.response
        } catch {
            return OAuthError.invalidRequest("\(error)").response
        }
    }
}
