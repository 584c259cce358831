import Locking
public import OAuthCore

/// Verifies RFC 8693 subject tokens of one `subject_token_type` and says whom they name.
///
/// The issuer verifies `urn:ietf:params:oauth:token-type:id_token` itself, against the
/// tenant's `.openIDProvider` connections. Other types (Apple's authorization code, Google or
/// Facebook tokens) need a resolver registered with `Issuer.register(_:for:)`; until then the
/// token endpoint refuses them.
public protocol SubjectTokenResolver: Sendable {
    /// Verifies the subject token.
    /// - Throws: an `OAuthError` to answer with, typically 403 `invalid_grant` for a token that
    ///   does not verify (Auth0's native social rule) or `invalid_request` for a malformed request.
    func resolve(_ subject: SubjectToken) async throws(OAuthError) -> ExternalIdentity
}

/// A subject token to verify, with the request it came in.
public struct SubjectToken: Sendable, Hashable {
    public var token: String
    public var type: String
    /// The client asking for the exchange (Apple's code must be redeemed for this client).
    public var clientID: String
    /// Every parameter of the token request but `client_secret`, for resolvers that need more
    /// (`nonce`…).
    public var parameters: [String: String]
    /// The issuer's time.
    public var now: Int64

    public init(token: String, type: String, clientID: String, parameters: [String: String], now: Int64) {
        self.token = token
        self.type = type
        self.clientID = clientID
        self.parameters = parameters
        self.now = now
    }
}

/// Who a subject token names, at which connection.
public struct ExternalIdentity: Sendable, Hashable {
    /// The tenant connection's name (`apple`, `google`…); users are `<connection>|<subject>`.
    public var connection: String
    /// The upstream `sub`.
    public var subject: String
    public var email: String?
    public var emailVerified: Bool?
    /// Name claims the upstream token carried (Apple's never do).
    public var givenName: String?
    public var familyName: String?
    public var name: String?

    public init(
        connection: String, subject: String, email: String? = nil, emailVerified: Bool? = nil,
        givenName: String? = nil, familyName: String? = nil, name: String? = nil
    ) {
        self.connection = connection
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.givenName = givenName
        self.familyName = familyName
        self.name = name
    }
}

/// The resolvers registered on one issuer, by subject token type.
final class SubjectTokenResolverTable: Sendable {
    private let resolvers = Mutex<[String: any SubjectTokenResolver]>([:])

    func set(_ resolver: (any SubjectTokenResolver)?, for type: String) {
        resolvers.withLock { $0[type] = resolver }
    }

    func resolver(for type: String) -> (any SubjectTokenResolver)? { resolvers.withLock { $0[type] } }
}

extension Issuer {
    /// Registers (or, with `nil`, removes) the resolver of a `subject_token_type`; it takes
    /// precedence over the built-in `id_token` verification.
    public func register(_ resolver: (any SubjectTokenResolver)?, for subjectTokenType: String) {
        subjectTokenResolvers.set(resolver, for: subjectTokenType)
    }
}
