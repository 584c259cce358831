import Cryptography
import Foundation
import HTTPCore
import OAuthCore

extension Issuer {
    /// Authenticates the client of a token or revocation request (RFC 6749 §2.3).
    ///
    /// Public clients name themselves with `client_id` and send no secret. Confidential clients
    /// use `client_secret_basic` (HTTP Basic, id and secret form-encoded first, §2.3.1) or
    /// `client_secret_post`, never both. Failures are 401 `invalid_client`, with a `Basic`
    /// challenge when the client tried HTTP Basic (§5.2). Secrets compare in constant time.
    func authenticateClient(_ parameters: OAuthRequestParameters, request: HTTPRequest) throws(OAuthError)
        -> ClientRegistration
    {
        let basic = try Issuer.basicCredentials(request.headers)
        let usedBasic = basic != nil
        if let basic {
            guard parameters["client_secret"] == nil else {
                throw .invalidRequest(
                    "the client authenticated with both HTTP Basic and client_secret; RFC 6749 §2.3 allows one method"
                )
            }
            if let bodyID = parameters["client_id"], bodyID != basic.id {
                throw .invalidRequest("client_id differs from the client of the HTTP Basic credentials")
            }
        }
        guard let clientID = basic?.id ?? parameters["client_id"] else {
            throw .invalidClient(
                "client authentication is required: send client_id, or the client's credentials")
        }
        guard let client = state.withLock({ $0.clients[clientID] }) else {
            throw .invalidClient(
                "unknown client \(OAuthRequestParameters.quoted(clientID))", basicChallenge: usedBasic)
        }
        let secret = basic?.secret ?? parameters["client_secret"]
        guard let expected = client.secret else {
            if usedBasic || secret != nil {
                throw .invalidClient(
                    "\(client.id) is a public client and must not send a client secret",
                    basicChallenge: usedBasic)
            }
            return client
        }
        guard let secret, !secret.isEmpty else {
            throw .invalidClient(
                "\(client.id) is a confidential client: a client secret is required",
                basicChallenge: usedBasic)
        }
        // Digests first, so the comparison's time depends on neither secret's length.
        guard ConstantTime.equals(SHA256.hash(secret), SHA256.hash(expected)) else {
            throw .invalidClient("client authentication failed", basicChallenge: usedBasic)
        }
        return client
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
