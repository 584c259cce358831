import Cryptography
import Foundation
import HTTPCore
import JOSE
import OAuthCore

extension Issuer {
    /// Leeway on a client assertion's `exp`, `nbf` and `iat`, in seconds.
    static let clientAssertionLeeway: Int64 = 60

    /// Authenticates the client of a token or revocation request (RFC 6749 §2.3, OpenID
    /// Connect Core §9).
    ///
    /// The request uses one method, never two (§2.3): `client_secret_basic` (HTTP Basic, id and
    /// secret form-encoded first, §2.3.1), `client_secret_post`, `private_key_jwt` (RFC 7523
    /// §2.2), or none (a public client names itself with `client_id`). The method must be one
    /// the client's registration accepts (`ClientRegistration.acceptedAuthenticationMethods`);
    /// the refusal names both. Failures are 401 `invalid_client`, with a `Basic` challenge when
    /// the client tried HTTP Basic (§5.2). Secrets compare in constant time; an assertion's
    /// `jti` is accepted once.
    ///
    /// With the `client-secret-post-refused` deviation, `client_secret_post` is refused with
    /// `invalid_client` though discovery still lists it (OpenID Connect Core §9).
    func authenticateClient(_ parameters: OAuthRequestParameters, request: HTTPRequest) throws(OAuthError)
        -> ClientRegistration
    {
        let basic = try Issuer.basicCredentials(request.headers)
        var used: [TokenEndpointAuthMethod] = []
        if basic != nil { used.append(.clientSecretBasic) }
        if parameters[OAuthParameter.clientSecret] != nil { used.append(.clientSecretPost) }
        if parameters[OAuthParameter.clientAssertion] != nil
            || parameters[OAuthParameter.clientAssertionType] != nil
        {
            used.append(.privateKeyJWT)
        }
        guard used.count <= 1 else {
            throw .invalidRequest(
                "the client authenticated with \(used.map(\.rawValue).joined(separator: " and ")); "
                    + "RFC 6749 §2.3 allows one method")
        }
        let method = used.first ?? .publicClient
        let usedBasic = method == .clientSecretBasic
        let clientID = try claimedClientID(parameters, basic: basic, method: method)
        guard let client = state.withLock({ $0.clients[clientID] }) else {
            throw .invalidClient(
                "unknown client \(OAuthRequestParameters.quoted(clientID))", basicChallenge: usedBasic)
        }
        let accepted = client.acceptedAuthenticationMethods
        guard accepted.contains(method) else {
            throw .invalidClient(Issuer.methodRefusal(client, used: method), basicChallenge: usedBasic)
        }
        if method == .clientSecretPost, tenant.deviates(.clientSecretPostRefused) {
            throw .invalidClient("client authentication failed", basicChallenge: false)
        }
        switch method {
        case .publicClient:
            break
        case .clientSecretBasic, .clientSecretPost:
            guard let expected = client.secret else {
                throw .invalidClient(
                    "\(client.id) has no client secret registered", basicChallenge: usedBasic)
            }
            guard let secret = basic?.secret ?? parameters[OAuthParameter.clientSecret], !secret.isEmpty
            else {
                throw .invalidClient(
                    "\(client.id) is a confidential client: a client secret is required",
                    basicChallenge: usedBasic)
            }
            // Digests first, so the comparison's time depends on neither secret's length.
            guard ConstantTime.equals(SHA256.hash(secret), SHA256.hash(expected)) else {
                throw .invalidClient("client authentication failed", basicChallenge: usedBasic)
            }
        case .privateKeyJWT:
            try checkClientAssertion(parameters[OAuthParameter.clientAssertion] ?? "", of: client)
        }
        return client
    }

    /// Who the request says the client is: the Basic user, the assertion's `iss` and `sub`,
    /// or `client_id`; a `client_id` given beside the first two must agree with them.
    private func claimedClientID(
        _ parameters: OAuthRequestParameters, basic: (id: String, secret: String)?,
        method: TokenEndpointAuthMethod
    ) throws(OAuthError) -> String {
        let bodyID = parameters[OAuthParameter.clientID]
        switch method {
        case .clientSecretBasic:
            let id = basic?.id ?? ""
            if let bodyID, bodyID != id {
                throw .invalidRequest("client_id differs from the client of the HTTP Basic credentials")
            }
            return id
        case .privateKeyJWT:
            guard parameters[OAuthParameter.clientAssertionType] == ClientAssertion.type else {
                throw .invalidClient(
                    "client_assertion_type must be \(ClientAssertion.type) (RFC 7523 §2.2)")
            }
            guard let assertion = parameters[OAuthParameter.clientAssertion] else {
                throw .invalidClient("client_assertion_type is given without client_assertion")
            }
            let id = try ClientAssertion.claimedClient(assertion)
            if let bodyID, bodyID != id {
                throw .invalidClient("client_id differs from the client the client_assertion names")
            }
            return id
        case .clientSecretPost, .publicClient:
            guard let bodyID else {
                throw .invalidClient(
                    "client authentication is required: send client_id, or the client's credentials")
            }
            return bodyID
        }
    }

    /// Verifies a `private_key_jwt` assertion with the client's registered keys, for this
    /// issuer (its identifier or its token endpoint URL as the only audience), and spends its
    /// `jti`.
    private func checkClientAssertion(_ assertion: String, of client: ClientRegistration) throws(OAuthError) {
        guard let keys = client.keys else {
            throw .invalidClient("\(client.id) has no keys registered (jwks) to verify a client_assertion")
        }
        let now = clock.now()
        let verified = try ClientAssertion.verify(
            assertion, clientID: client.id, keys: JWKCollection(keys),
            audiences: [identifier, url(Path.token)],
            now: now, leeway: Issuer.clientAssertionLeeway)
        let key = ClientAssertionReplayCache.key(clientID: client.id, id: verified.id)
        let (outcome, nextExpiry) = state.withLock {
            (
                $0.clientAssertionIDs.use(
                    key, expiresAt: verified.expiresAt + Issuer.clientAssertionLeeway, now: now),
                $0.clientAssertionIDs.nextExpiry
            )
        }
        switch outcome {
        case .recorded: return
        case .replayed:
            throw .invalidClient(
                "the client_assertion's jti was used before; an assertion is good for one request "
                    + "(OpenID Connect Core §9)")
        case .full:
            throw OAuthError(
                OAuthErrorCode.temporarilyUnavailable,
                "too many client assertions within their lifetimes; retry later",
                status: 503, headers: ["Retry-After": String(max(1, (nextExpiry ?? now) - now))])
        }
    }

    /// Why a client may not use the method a request used, naming both.
    static func methodRefusal(_ client: ClientRegistration, used: TokenEndpointAuthMethod) -> String {
        let accepted = client.acceptedAuthenticationMethods
        if accepted == [.publicClient] {
            return "\(client.id) is a public client (token_endpoint_auth_method none) and must not send "
                + "credentials; the request used \(used)"
        }
        let expected = accepted.map(\.rawValue).joined(separator: " or ")
        if used == .publicClient {
            return "\(client.id) is a confidential client: it authenticates with \(expected), "
                + "and the request sent no client credentials"
        }
        return "\(client.id) is registered for \(expected), but the request used \(used)"
    }

    /// The client id and secret of an `Authorization: Basic` header (RFC 6749 §2.3.1,
    /// RFC 7617), or `nil` without one. Other schemes are not client authentication and are
    /// left alone.
    static func basicCredentials(_ headers: HTTPHeaders) throws(OAuthError) -> (id: String, secret: String)? {
        let fields = headers.values(for: "Authorization")
        guard !fields.isEmpty else { return nil }
        guard fields.count == 1 else {
            throw .invalidRequest("the request has several Authorization headers")
        }
        let id: String
        let secret: String
        switch BasicCredentials.read(fields[0]) {
        case .otherScheme: return nil
        case .malformed:
            throw .invalidClient("the HTTP Basic credentials are malformed", basicChallenge: true)
        case .notFormEncoded:
            throw .invalidClient("the HTTP Basic credentials are not form-urlencoded", basicChallenge: true)
        case .credentials(let decodedID, let decodedSecret): (id, secret) = (decodedID, decodedSecret)
        }
        guard !id.isEmpty else {
            throw .invalidClient("the HTTP Basic credentials name no client", basicChallenge: true)
        }
        return (id, secret)
    }
}
