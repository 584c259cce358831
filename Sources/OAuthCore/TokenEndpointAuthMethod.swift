/// How a client proves who it is at the token endpoint: the registered values of
/// `token_endpoint_auth_method` (OpenID Connect Core §9, RFC 7591 §2).
///
/// `client_secret_jwt` (an HMAC over the secret) is not among them on purpose: SignInSim signs
/// and verifies asymmetric JWS algorithms only (see `JWSAlgorithm`).
public enum TokenEndpointAuthMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The secret in an `Authorization: Basic` header, id and secret form-encoded first
    /// (RFC 6749 §2.3.1). The default of OpenID Connect Discovery §3 when an issuer lists none,
    /// and the one RFC 6749 §2.3.1 requires every server to support.
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the form body (RFC 6749 §2.3.1).
    case clientSecretPost = "client_secret_post"
    /// A JWT signed with the client's private key, in `client_assertion` (RFC 7523 §2.2,
    /// OpenID Connect Core §9); the issuer holds the public key.
    case privateKeyJWT = "private_key_jwt"
    /// No authentication: a public client that only names itself with `client_id`
    /// (RFC 6749 §2.1, RFC 8252 §8.4). The registered value is `none`.
    case publicClient = "none"

    public var description: String { rawValue }

    /// The values, as a sentence lists them.
    public static var spelledOut: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
