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
        do throws(OAuthError) {
            let mint = try AdminMintRequest(try Issuer.adminBody(request), tenant: tenant)
            let (client, user) = try adminMintParties(mint)
            let now = clock.now()
            let grant = TokenGrant(
                kind: .refresh, user: user, client: client, scopes: mint.scopes, audience: mint.audience,
                nonce: nil, authTime: now, sessionID: nil, dpopKeyThumbprint: mint.dpopKeyThumbprint)
            let plainText = request.headers["Accept"].map { MediaType.essence($0) == "text/plain" } ?? false
            // The answer is written as it is minted, without a JSONValue per token: 100,000
            // tokens are 4.6 MB of JSON, and large transient buffers stay in the heap.
            var output: [UInt8] = []
            output.reserveCapacity(mint.count * 46 + 256)
            if !plainText {
                output += #"{"client_id":"#.utf8
                output += JSONValue.string(client.id).serialized()
                output += #","refresh_tokens":["#.utf8
            }
            mintRefreshTokens(mint.count, for: grant, now: now, plainText: plainText, into: &output)
            if plainText {
                // One token a line: 100,000 tokens are more JSON than JSONValue parses by default.
                return HTTPResponse(
                    status: 201, headers: ["Content-Type": "text/plain; charset=utf-8"], body: output)
            }
            output += #"],"user_id":"#.utf8
            output += JSONValue.string(user.id).serialized()
            output.append(UInt8(ascii: "}"))
            return HTTPResponse(status: 201, headers: ["Content-Type": MediaType.json], body: output)
        } catch {
            return error.response
        }
    }

    /// The client the tokens are minted for, allowed the refresh grant, and the user they are
    /// minted for (by `user_id`, else by `email`).
    private func adminMintParties(_ mint: AdminMintRequest) throws(OAuthError) -> (
        ClientRegistration, UserAccount
    ) {
        let (client, user) = state.withLock { state -> (ClientRegistration?, UserAccount?) in
            let user =
                mint.userID.flatMap { state.users[$0] } ?? mint.email.flatMap { state.user(email: $0) }
            return (state.clients[mint.clientID], user)
        }
        guard let client else {
            throw OAuthError.invalidRequest("unknown client \(OAuthRequestParameters.quoted(mint.clientID))")
        }
        guard client.grantTypes.contains(GrantType.refreshToken) else {
            throw OAuthError.invalidRequest("client \(client.id) is not allowed the refresh_token grant")
        }
        guard let user else { throw OAuthError.invalidRequest("no user with that user_id or email") }
        return (client, user)
    }

    /// Mints `count` refresh tokens of `grant`, each in a family of its own, and writes them to
    /// `output`: one a line, or as the items of a JSON array.
    private func mintRefreshTokens(
        _ count: Int, for grant: TokenGrant, now: Int64, plainText: Bool, into output: inout [UInt8]
    ) {
        // One grant object for every family of this request: a family costs a few words.
        let shared = RefreshGrant(grant)
        var minted = 0
        // In batches, so that a large request does not hold the lock against live traffic;
        // the random values are drawn outside it.
        while minted < count {
            let seeds = (0..<min(count - minted, 2048)).map { _ in newRefreshToken() }
            let batch = state.withLock { state in
                seeds.map { seed in
                    storeRefreshToken(seed, for: grant, familyID: nil, shared: shared, now: now, in: &state)
                        .token
                }
            }
            for token in batch {
                if plainText {
                    output += token.utf8
                    output.append(UInt8(ascii: "\n"))
                } else {
                    if minted > 0 { output.append(UInt8(ascii: ",")) }
                    // base64url: nothing to escape.
                    output.append(UInt8(ascii: "\""))
                    output += token.utf8
                    output.append(UInt8(ascii: "\""))
                }
                minted += 1
            }
        }
    }
}

/// The body of a `POST /_admin/tokens` request, checked against the tenant.
private struct AdminMintRequest {
    var clientID: String
    var count = 1
    var scopes: [String]
    var audience: String?
    var dpopKeyThumbprint: String?
    var userID: String?
    var email: String?

    init(_ body: [String: JSONValue], tenant: Tenant) throws(OAuthError) {
        guard let clientID = body["client_id"]?.stringValue else {
            throw OAuthError.invalidRequest("client_id is required")
        }
        self.clientID = clientID
        if let value = body["count"] {
            guard let number = value.int64Value, number >= 1, number <= Int64(Issuer.adminTokenLimit) else {
                throw OAuthError.invalidRequest(
                    "count must be an integer from 1 to \(Issuer.adminTokenLimit)")
            }
            count = Int(number)
        }
        scopes = ScopeList.parse(body["scope"]?.stringValue ?? "openid profile email offline_access")
        guard !scopes.isEmpty, scopes.allSatisfy(ScopeList.isValidToken) else {
            throw OAuthError.invalidRequest("scope must be a space-separated list of scope tokens")
        }
        audience = body["audience"]?.stringValue ?? tenant.defaultAudience
        if let audience, tenant.audience(audience) == nil {
            throw OAuthError.invalidRequest(
                "audience \(OAuthRequestParameters.quoted(audience)) is not an API here")
        }
        if let jkt = body["dpop_jkt"] {
            guard let text = jkt.stringValue, (try? Base64URL.decode(text))?.count == 32 else {
                throw OAuthError.invalidRequest("dpop_jkt must be a base64url SHA-256 JWK thumbprint")
            }
            dpopKeyThumbprint = text
        }
        userID = body["user_id"]?.stringValue
        email = body["email"]?.stringValue
    }
}
