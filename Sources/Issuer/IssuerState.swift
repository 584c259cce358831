import Cryptography
import JOSE

/// Everything the issuer remembers, guarded by one lock in `Issuer` so that each request's
/// read-modify-write (a code redeemed once, a refresh token rotated once) is atomic.
///
/// Secrets are stored only as SHA-256 hashes: codes and sessions as base64url text, refresh
/// tokens as 32-byte `TokenHash` values (there are hundreds of thousands of those under load).
struct IssuerState: Sendable {
    var clients: [String: ClientRegistration] = [:]
    private(set) var users: [String: UserAccount] = [:]
    var keys: SigningKeyRing

    /// Login transactions by id: an authorization request waiting for the user. At most
    /// `IssuerLimits.pendingTransactions`, the oldest forgotten first.
    var transactions: BoundedTable<String, AuthorizationTransaction>
    /// Authorization codes by hash.
    var codes: [String: AuthorizationCodeRecord] = [:]
    /// Issuer sessions (the SSO cookie) by hash of the cookie value.
    var sessions: [String: SessionRecord] = [:]
    /// Scopes each user granted each client.
    var consents: [ConsentKey: Set<String>] = [:]
    /// Refresh tokens by hash.
    var refreshTokens = ShardedTable<TokenHash, RefreshTokenRecord>()
    /// RFC 9449 §5: the DPoP key thumbprint of each refresh token bound to one (public clients
    /// that signed in or refreshed with a proof); most tokens are not, and cost nothing here.
    var refreshTokenBindings: [TokenHash: String] = [:]
    /// Refresh token families by id.
    var families = ShardedTable<RefreshFamily.ID, RefreshFamily>()
    /// The id the next family gets.
    var nextFamilyID: RefreshFamily.ID = 1
    /// Refresh token hashes by expiry, for `sweep`.
    var refreshTokenExpiries = ExpiryQueue<TokenHash>()
    /// What Keycloak keeps in a client session for refresh token reuse, per family of a client
    /// under the `keycloak` profile (`RefreshRotation.keycloak`); empty otherwise.
    var keycloakReuse: [RefreshFamily.ID: KeycloakReuseState] = [:]
    /// Access tokens revoked before their expiry, by `jti`, with that expiry.
    var revokedAccessTokens: [String: Int64] = [:]
    /// DPoP proof `jti`s seen within the window (RFC 9449 §11.1); forgets by generation, not by sweep.
    var dpopProofIDs: DPoPReplayCache
    /// The current DPoP server nonce and the previous one (both accepted).
    var dpopNonces: [String] = []
    /// When the current DPoP nonce was minted.
    var dpopNonceIssuedAt: Int64 = 0
    /// `private_key_jwt` assertion `jti`s seen and not yet expired (OpenID Connect Core §9).
    var clientAssertionIDs: ClientAssertionReplayCache

    var faults = FaultPlan()
    /// How the JWKS is shown while kid-less tokens from an RP fault are out.
    var jwksPresentation = JWKSPresentation.normal
    /// When `sweep` last ran.
    var lastSweep: Int64 = 0

    init(tenant: Tenant, keys: SigningKeyRing, limits: IssuerLimits = .default) {
        self.keys = keys
        transactions = BoundedTable(capacity: limits.pendingTransactions)
        dpopProofIDs = DPoPReplayCache(capacity: limits.dpopProofIDs)
        clientAssertionIDs = ClientAssertionReplayCache(capacity: limits.clientAssertionIDs)
        for client in tenant.clients { clients[client.id] = client }
        for user in tenant.users { store(user) }
    }

    /// Users linked to an upstream identity, by `<connection>|<external id>`, so that a token
    /// exchange finds its user without scanning them all.
    private(set) var userIDsByExternalID: [String: String] = [:]

    /// Adds or replaces a user, keeping the external-identity index in step.
    mutating func store(_ user: UserAccount) {
        if let old = users[user.id], let external = old.externalID {
            userIDsByExternalID[old.connection + "|" + external] = nil
        }
        users[user.id] = user
        if let external = user.externalID { userIDsByExternalID[user.connection + "|" + external] = user.id }
    }

    /// The user linked to `subject` at `connection`.
    func user(connection: String, externalID subject: String) -> UserAccount? {
        userIDsByExternalID[connection + "|" + subject].flatMap { users[$0] }
    }

    func user(email: String) -> UserAccount? {
        let wanted = email.lowercased()
        return users.values.first { $0.email?.lowercased() == wanted }
    }

    /// Forgets what has expired, so memory stays bounded under load.
    mutating func sweep(now: Int64) {
        lastSweep = now
        transactions.removeAll { $0.expiresAt <= now }
        codes = codes.filter { $0.value.expiresAt > now }
        sessions = sessions.filter { $0.value.expiresAt > now }
        revokedAccessTokens = revokedAccessTokens.filter { $0.value > now }
        // Refresh tokens by expiry, not by scan: a family goes with the last of its tokens.
        while let hash = refreshTokenExpiries.popExpired(now: now) {
            guard let record = refreshTokens.removeValue(forKey: hash) else { continue }
            if !refreshTokenBindings.isEmpty { refreshTokenBindings[hash] = nil }
            let remaining = families[record.familyID].map { $0.tokenCount - 1 } ?? 0
            if remaining > 0 {
                families[record.familyID]?.tokenCount = remaining
            } else {
                families[record.familyID] = nil
                if !keycloakReuse.isEmpty { keycloakReuse[record.familyID] = nil }
            }
        }
    }

    /// A new, empty refresh token family for `grant`.
    mutating func newRefreshFamily(_ grant: RefreshGrant) -> RefreshFamily.ID {
        var id = nextFamilyID
        // After 2³² families the ids wrap around; skip any still in use.
        while families[id] != nil { id &+= 1 }
        nextFamilyID = id &+ 1
        families[id] = RefreshFamily(grant: grant)
        return id
    }

    /// Stores a refresh token (by its hash) as the newest of a family.
    mutating func storeRefreshToken(
        _ hash: TokenHash, familyID: RefreshFamily.ID, dpopKeyThumbprint: String?, expiresAt: Int64
    ) {
        refreshTokens[hash] = RefreshTokenRecord(status: .active, familyID: familyID, expiresAt: expiresAt)
        if let dpopKeyThumbprint { refreshTokenBindings[hash] = dpopKeyThumbprint }
        refreshTokenExpiries.insert(hash, expiresAt: expiresAt)
        families[familyID]?.tokenCount += 1
    }

    /// The status of a refresh token as the token endpoint judges it: a token of a revoked
    /// family is revoked, whatever it was before.
    func refreshTokenStatus(_ record: RefreshTokenRecord) -> RefreshTokenRecord.Status {
        families[record.familyID]?.revokedReason == nil ? record.status : .revoked
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
    var refreshFamilyID: RefreshFamily.ID?
    var accessTokenID: AccessTokenID
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

/// One refresh token, kept small: what it grants lives in its family (`RefreshGrant`), its
/// DPoP binding (if any) in `IssuerState.refreshTokenBindings`.
///
/// 56 bytes, plus the 32-byte key: after a load test the issuer holds several hundred
/// thousand of these, rotated ones included (they stay until they expire, for reuse detection).
struct RefreshTokenRecord: Sendable {
    enum Status: Sendable, Equatable {
        case active
        /// Exchanged for a successor at the given time (refresh token rotation).
        case rotated(at: Int64, successor: TokenHash)
        case revoked
    }

    var status: Status
    /// How many successors this token was exchanged for (more than one only where a profile
    /// lets a rotated token be exchanged again); fits in the record's padding.
    var successorCount: UInt8 = 0
    var familyID: RefreshFamily.ID
    var expiresAt: Int64
}

/// Keycloak's refresh token reuse bookkeeping of one client session
/// (`AuthenticatedClientSessionModel`: the refresh token last presented, its use count, and the
/// `iat` of the newest refresh token issued).
struct KeycloakReuseState: Sendable {
    /// The refresh token presented last.
    var current: TokenHash?
    /// How many times `current` was exchanged.
    var useCount = 0
    /// When the newest refresh token was issued, in issuer seconds.
    var lastRefresh: Int64 = 0
}

/// What a refresh token grant is for, fixed when the grant is made (code redeemed, subject
/// token exchanged, tokens minted by `/_admin/tokens`) and shared by every token of the
/// family, and by every family that one `/_admin/tokens` request mints.
final class RefreshGrant: Sendable {
    let clientID: String
    let userID: String
    let scopes: [String]
    let audience: String?
    let authTime: Int64
    let sessionID: String?

    init(
        clientID: String, userID: String, scopes: [String], audience: String?, authTime: Int64,
        sessionID: String?
    ) {
        self.clientID = clientID
        self.userID = userID
        self.scopes = scopes
        self.audience = audience
        self.authTime = authTime
        self.sessionID = sessionID
    }

    convenience init(_ grant: TokenGrant) {
        self.init(
            clientID: grant.client.id, userID: grant.user.id, scopes: grant.scopes, audience: grant.audience,
            authTime: grant.authTime, sessionID: grant.sessionID)
    }
}

/// All refresh tokens descended from one grant (OAuth 2.0 Security BCP, RFC 9700 §4.14.2).
struct RefreshFamily: Sendable {
    /// Internal only (never in a token or a response): a counter, 4 bytes in each token record.
    typealias ID = UInt32

    /// Why a family was revoked.
    enum RevocationReason: UInt8, Sendable {
        case replayDetected
        /// RFC 6749 §4.1.2: the code the family was issued for was presented again.
        case codeReused
        /// RFC 7009.
        case revokedByClient
    }

    let grant: RefreshGrant
    /// Access tokens issued in this family, with their expiry: revoked with the family
    /// (RFC 7009 §2.1).
    var accessTokens: [(id: AccessTokenID, expiresAt: Int64)] = []
    /// How many of its tokens are still stored: the family is forgotten with the last one.
    var tokenCount: Int32 = 0
    /// Set when the family is revoked: every token of it is then revoked.
    var revokedReason: RevocationReason?

    init(grant: RefreshGrant) { self.grant = grant }

    mutating func recordAccessToken(_ id: AccessTokenID, expiresAt: Int64, now: Int64) {
        if !accessTokens.isEmpty, accessTokens.count % 32 == 0 {
            accessTokens.removeAll { $0.expiresAt <= now }
        }
        accessTokens.append((id, expiresAt))
    }
}

/// The SHA-256 digest of a refresh token, as four words: a dictionary key with no heap storage
/// and a cheap hash (the digest is already uniformly distributed; `Hasher` is seeded per process).
struct TokenHash: Hashable, Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    init(words: (UInt64, UInt64, UInt64, UInt64)) { self.words = words }

    /// The digest of the token's UTF-8 bytes.
    init(of token: String) {
        let digest = SHA256.hash(token)
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: digest.prefix(32)) }
        self.words = words
    }

    static func == (lhs: TokenHash, rhs: TokenHash) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
}

/// An access token's `jti`: 16 random bytes, kept as two words and spelled in base64url.
struct AccessTokenID: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    init(bytes: [UInt8]) {
        precondition(bytes.count == 16)
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
        (high, low) = words
    }

    /// The `jti` claim.
    var string: String {
        var words = (high, low)
        return withUnsafeBytes(of: &words) { Base64URL.encode($0) }
    }
}

/// What `/.well-known/jwks.json` shows besides the normal keys.
enum JWKSPresentation: Sendable {
    case normal
    case activeKeyOnly
    case withDecoy(JWK)
}
