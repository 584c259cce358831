import JOSE

/// Everything the issuer remembers, guarded by one lock in `Issuer` so that each request's
/// read-modify-write (a code redeemed once, a refresh token rotated once) is atomic.
///
/// Secrets are stored only as SHA-256 hashes (base64url): codes, refresh tokens, sessions.
struct IssuerState: Sendable {
    var clients: [String: ClientRegistration] = [:]
    var users: [String: UserAccount] = [:]
    var keys: SigningKeyRing

    /// Login transactions by id: an authorization request waiting for the user.
    var transactions: [String: AuthorizationTransaction] = [:]
    /// Authorization codes by hash.
    var codes: [String: AuthorizationCodeRecord] = [:]
    /// Issuer sessions (the SSO cookie) by hash of the cookie value.
    var sessions: [String: SessionRecord] = [:]
    /// Scopes each user granted each client.
    var consents: [ConsentKey: Set<String>] = [:]
    /// Refresh tokens by hash.
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    /// Refresh token families by id.
    var families: [String: RefreshFamily] = [:]
    /// Refresh token hashes by expiry, for `sweep`.
    var refreshTokenExpiries = ExpiryQueue()
    /// Access tokens revoked before their expiry, by `jti`, with that expiry.
    var revokedAccessTokens: [String: Int64] = [:]
    /// DPoP proof `jti`s seen within the window (RFC 9449 §11.1); forgets by generation, not by sweep.
    var dpopProofIDs = DPoPReplayCache()
    /// The current DPoP server nonce and the previous one (both accepted).
    var dpopNonces: [String] = []
    /// When the current DPoP nonce was minted.
    var dpopNonceIssuedAt: Int64 = 0

    var faults = FaultPlan()
    /// How the JWKS is shown while kid-less tokens from an RP fault are out.
    var jwksPresentation = JWKSPresentation.normal
    var requestLog = RequestLog(capacity: 10_000)
    /// When `sweep` last ran.
    var lastSweep: Int64 = 0

    init(tenant: Tenant, keys: SigningKeyRing) {
        self.keys = keys
        for client in tenant.clients { clients[client.id] = client }
        for user in tenant.users { users[user.id] = user }
    }

    func user(email: String) -> UserAccount? {
        let wanted = email.lowercased()
        return users.values.first { $0.email?.lowercased() == wanted }
    }

    /// Forgets what has expired, so memory stays bounded under load.
    mutating func sweep(now: Int64) {
        lastSweep = now
        transactions = transactions.filter { $0.value.expiresAt > now }
        codes = codes.filter { $0.value.expiresAt > now }
        sessions = sessions.filter { $0.value.expiresAt > now }
        revokedAccessTokens = revokedAccessTokens.filter { $0.value > now }
        // Refresh tokens by expiry, not by scan: a family goes with its newest token, which
        // expires last.
        while let hash = refreshTokenExpiries.popExpired(now: now) {
            guard let record = refreshTokens.removeValue(forKey: hash) else { continue }
            if families[record.familyID]?.tokenHashes.last == hash { families[record.familyID] = nil }
        }
    }
}

/// A pending authorization request and where the user is in it (login, then consent).
struct AuthorizationTransaction: Sendable {
    enum Stage: Sendable { case login, consent }

    var id: String
    /// Must be echoed by the login and consent forms (CSRF defence).
    var csrfToken: String
    var request: AuthorizationRequest
    var stage: Stage
    var userID: String?
    var authTime: Int64?
    var sessionHash: String?
    var expiresAt: Int64
}

/// A validated `/authorize` request (RFC 6749 §4.1.1, OpenID Connect Core §3.1.2.1).
struct AuthorizationRequest: Sendable, Hashable {
    var clientID: String
    var redirectURI: String
    var scopes: [String]
    var state: String?
    var nonce: String?
    var codeChallenge: String?
    var prompt: Set<String>
    var loginHint: String?
    var maxAge: Int64?
    var audience: String?
    /// RFC 9449 §10: `dpop_jkt` binds the code to a key.
    var dpopKeyThumbprint: String?
}

struct AuthorizationCodeRecord: Sendable {
    var clientID: String
    var redirectURI: String
    var userID: String
    var scopes: [String]
    var audience: String?
    var nonce: String?
    var codeChallenge: String?
    var authTime: Int64
    var sessionID: String?
    var dpopKeyThumbprint: String?
    var expiresAt: Int64
    /// Set when redeemed: a second use revokes what the first one issued (RFC 6749 §4.1.2).
    var redeemed: RedeemedTokens?
}

/// What one code redemption issued, so that a replayed code can revoke it.
struct RedeemedTokens: Sendable {
    var refreshFamilyID: String?
    var accessTokenID: String
    var accessTokenExpiresAt: Int64
}

struct SessionRecord: Sendable {
    /// The public `sid` claim (not the cookie value).
    var id: String
    var userID: String
    var authTime: Int64
    var expiresAt: Int64
}

struct ConsentKey: Hashable, Sendable {
    var userID: String
    var clientID: String
}

struct RefreshTokenRecord: Sendable {
    enum Status: Sendable {
        case active
        /// Exchanged for a successor at the given time (refresh token rotation).
        case rotated(at: Int64, successorHash: String)
        case revoked
    }

    var familyID: String
    var clientID: String
    var userID: String
    var scopes: [String]
    var audience: String?
    var authTime: Int64
    var sessionID: String?
    /// RFC 9449 §5: a public client's refresh token is bound to its DPoP key.
    var dpopKeyThumbprint: String?
    var expiresAt: Int64
    var status: Status
}

/// All refresh tokens descended from one grant (OAuth 2.0 Security BCP, RFC 9700 §4.14.2).
struct RefreshFamily: Sendable {
    var id: String
    var revokedReason: String?
    var tokenHashes: [String]
    /// Access tokens issued in this family by `jti`, with their expiry: revoked with the family
    /// (RFC 7009 §2.1).
    var accessTokens: [String: Int64] = [:]
}

/// What `/.well-known/jwks.json` shows besides the normal keys.
enum JWKSPresentation: Sendable {
    case normal
    case activeKeyOnly
    case withDecoy(JWK)
}
