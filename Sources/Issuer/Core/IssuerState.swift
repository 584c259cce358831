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
    /// Pushed authorization requests (RFC 9126) by hash of their `request_uri`. At most
    /// `IssuerLimits.pushedAuthorizationRequests`, the oldest forgotten first.
    var pushedRequests: BoundedTable<String, PushedAuthorizationRecord>
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
    /// Refresh token hashes by expiry, for `sweep`. A token forgotten before it expires
    /// (`forgetRefreshToken`) leaves a stale entry, counted in `staleRefreshTokenExpiries` and
    /// cleared in bulk once stale entries are half of the queue.
    var refreshTokenExpiries = ExpiryQueue<TokenHash>()
    var staleRefreshTokenExpiries = 0
    /// The key refresh tokens are authenticated with (`RefreshTokenFormat`): drawn with the
    /// first refresh token of this state, so a reset makes earlier tokens unknown.
    var refreshTokenKey: HMACSHA256Key?
    /// The tokens each family retired (rotated, or revoked on their own), oldest first, at most
    /// `RefreshFamily.retiredLimit`; families that never rotated have no entry. What a profile
    /// judges a rotated token by within its grace lives in these tokens' records; a token
    /// retired longer ago is forgotten, and known again by what it says (`RefreshTokenFormat`).
    var retiredRefreshTokens = ShardedTable<RefreshFamily.ID, [TokenHash]>()
    /// The DPoP key thumbprint a family's bound tokens are bound to (the newest binding), for
    /// its forgotten bound tokens.
    var refreshFamilyBindings: [RefreshFamily.ID: String] = [:]
    /// What Keycloak keeps in a client session for refresh token reuse, per family of a client
    /// under the `keycloak` profile (`RefreshRotation.keycloak`); empty otherwise.
    var keycloakReuse: [RefreshFamily.ID: KeycloakReuseState] = [:]
    /// Access tokens revoked before their expiry, by `jti`, with that expiry.
    var revokedAccessTokens: [String: Int64] = [:]
    /// Families whose access tokens were revoked with them, until the last of those expires.
    var revokedAccessTokenFamilies: [RefreshFamily.ID: Int64] = [:]
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
        pushedRequests = BoundedTable(capacity: limits.pushedAuthorizationRequests)
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
        pushedRequests.removeAll { $0.expiresAt <= now }
        codes = codes.filter { $0.value.expiresAt > now }
        sessions = sessions.filter { $0.value.expiresAt > now }
        revokedAccessTokens = revokedAccessTokens.filter { $0.value > now }
        revokedAccessTokenFamilies = revokedAccessTokenFamilies.filter { $0.value > now }
        // Refresh tokens by expiry, not by scan: a family goes with the last of its tokens.
        while let hash = refreshTokenExpiries.popExpired(now: now) {
            if refreshTokens[hash] == nil {
                staleRefreshTokenExpiries = max(0, staleRefreshTokenExpiries - 1)
                continue
            }
            forgetRefreshToken(hash)
        }
    }

    /// Removes a stored refresh token (expired, or retired longer ago than a family keeps);
    /// its family goes with its last stored token.
    mutating func forgetRefreshToken(_ hash: TokenHash) {
        guard let record = refreshTokens.removeValue(forKey: hash) else { return }
        if !refreshTokenBindings.isEmpty { refreshTokenBindings[hash] = nil }
        let remaining = families[record.familyID].map { $0.tokenCount - 1 } ?? 0
        if remaining > 0 {
            families[record.familyID]?.tokenCount = remaining
        } else {
            families[record.familyID] = nil
            retiredRefreshTokens[record.familyID] = nil
            if !keycloakReuse.isEmpty { keycloakReuse[record.familyID] = nil }
            if !refreshFamilyBindings.isEmpty { refreshFamilyBindings[record.familyID] = nil }
        }
    }

    /// Notes that a family's token stopped being live (rotated, or revoked on its own). The
    /// family keeps the records of its last `RefreshFamily.retiredLimit` retired tokens; the one
    /// retired before them is forgotten, so that a family's memory does not grow with its
    /// refreshes.
    mutating func retireRefreshToken(_ hash: TokenHash, familyID: RefreshFamily.ID) {
        var retired = retiredRefreshTokens[familyID] ?? []
        retired.append(hash)
        if retired.count > RefreshFamily.retiredLimit {
            let forgotten = retired.removeFirst()
            if refreshTokens[forgotten] != nil {
                forgetRefreshToken(forgotten)
                staleRefreshTokenExpiries += 1
                compactRefreshTokenExpiriesIfStale()
            }
        }
        // The family may have gone with the forgotten token only if it had no other; it has
        // the successor, so it is still here.
        if families[familyID] != nil { retiredRefreshTokens[familyID] = retired }
    }

    /// Clears the expiry queue of forgotten tokens once they are half of it: O(n), once per
    /// n/2 forgotten tokens.
    private mutating func compactRefreshTokenExpiriesIfStale() {
        guard staleRefreshTokenExpiries >= 1024, 2 * staleRefreshTokenExpiries >= refreshTokenExpiries.count
        else { return }
        let tokens = refreshTokens
        refreshTokenExpiries.removeAll { tokens[$0] == nil }
        staleRefreshTokenExpiries = 0
    }

    /// What the token endpoint knows of a presented refresh token: its stored record and DPoP
    /// binding, or, for a token this state made and has forgotten (`retireRefreshToken`), a
    /// stand-in: rotated long before any grace, with no successor known, bound as the token
    /// says. `nil` for a token unknown, expired and forgotten, or of a family gone.
    func presentedRefreshToken(_ hash: TokenHash, token: String, now: Int64) -> (
        record: RefreshTokenRecord, binding: String?
    )? {
        if let record = refreshTokens[hash] {
            return (record, refreshTokenBindings.isEmpty ? nil : refreshTokenBindings[hash])
        }
        guard let key = refreshTokenKey, let read = RefreshTokenFormat.read(token, key: key),
            read.expiresAt > now, families[read.familyID] != nil
        else { return nil }
        let record = RefreshTokenRecord(
            status: .rotated(at: RefreshTokenRecord.forgottenRotation, successor: TokenHash.zero),
            familyID: read.familyID, expiresAt: read.expiresAt)
        return (record, read.bound ? refreshFamilyBindings[read.familyID] : nil)
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
        if let dpopKeyThumbprint {
            refreshTokenBindings[hash] = dpopKeyThumbprint
            refreshFamilyBindings[familyID] = dpopKeyThumbprint
        }
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
    /// How `codeChallenge` was made (RFC 7636 §4.3); S256 unless the tenant allows plain.
    var codeChallengeMethod: CodeChallengeMethod = .s256
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
    /// How `codeChallenge` was made (RFC 7636 §4.3); S256 unless the tenant allows plain.
    var codeChallengeMethod: CodeChallengeMethod = .s256
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
/// The same fields as plain `Int`s make 72 bytes: at the 300,000 records behind
/// `scripts/bench issuer`'s "after 100,000 refreshes" memory figure (524,288 buckets over the
/// shards), 8.4 MB more, 7-8% of a figure last recorded at 108 MB (computed from
/// `MemoryLayout`, docs/benchmarks.md).
struct RefreshTokenRecord: Sendable {
    enum Status: Sendable, Equatable {
        case active
        /// Exchanged for a successor at the given time (refresh token rotation).
        case rotated(at: Int64, successor: TokenHash)
        case revoked
    }

    /// The rotation time of a forgotten token's stand-in (`IssuerState.presentedRefreshToken`):
    /// longer ago than any grace, and never "now".
    static let forgottenRotation = Int64.min / 4

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

    /// How many retired tokens (rotated, or revoked on their own) a family keeps the records
    /// of (`IssuerState.retireRefreshToken`); an older one is forgotten and judged as a token
    /// rotated longer ago than any grace or reuse interval.
    static let retiredLimit = 8

    let grant: RefreshGrant
    /// When the last access token issued in this family expires: until then, revoking the
    /// family revokes its access tokens too (RFC 7009 §2.1), which carry the family in their
    /// `jti` (`AccessTokenID.family`).
    var accessTokensExpireBy: Int64 = 0
    /// How many of its tokens are still stored: the family is forgotten with the last one.
    var tokenCount: Int32 = 0
    /// Set when the family is revoked: every token of it is then revoked.
    var revokedReason: RevocationReason?

    init(grant: RefreshGrant) { self.grant = grant }

    mutating func noteAccessToken(expiresAt: Int64) {
        accessTokensExpireBy = max(accessTokensExpireBy, expiresAt)
    }
}

/// The SHA-256 digest of a refresh token, as four words: a dictionary key with no heap storage
/// and a cheap hash (the digest is already uniformly distributed; `Hasher` is seeded per process).
struct TokenHash: Hashable, Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    init(words: (UInt64, UInt64, UInt64, UInt64)) { self.words = words }

    /// No token's hash (all zero bits): the successor of a forgotten token's stand-in.
    static let zero = TokenHash(words: (0, 0, 0, 0))

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

    /// The refresh family the token was issued in, kept in the first four bytes of the `jti`
    /// (family + 1; zero for none). The `jti` is inside the signed token, so no client can move
    /// a token into or out of a family; the other twelve bytes stay random.
    var family: RefreshFamily.ID? {
        let marker = RefreshFamily.ID(truncatingIfNeeded: high)
        return marker == 0 ? nil : marker &- 1
    }

    /// This id with no family: what `newAccessTokenID` makes.
    var unmarked: AccessTokenID {
        var id = self
        id.high &= ~UInt64(UInt32.max)
        return id
    }

    /// This id, issued in `family`.
    func marked(family: RefreshFamily.ID) -> AccessTokenID {
        var id = unmarked
        id.high |= UInt64(family &+ 1)
        return id
    }

    /// The id a `jti` claim spells, or `nil` when it is not one this issuer makes.
    init?(jti: String) {
        guard let bytes = try? Base64URL.decode(jti), bytes.count == 16 else { return nil }
        self.init(bytes: bytes)
    }
}

/// What `/.well-known/jwks.json` shows besides the normal keys.
enum JWKSPresentation: Sendable {
    case normal
    case activeKeyOnly
    case withDecoy(JWK)
}
