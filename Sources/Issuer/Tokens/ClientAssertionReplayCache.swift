/// The `jti`s of `private_key_jwt` assertions already used, each kept until its assertion
/// expires: OpenID Connect Core §9 makes an assertion single-use, RFC 7523 §3 item 7 lets the
/// server enforce it "for the length of time for which the JWT would be considered valid based
/// on the applicable exp instant". `ClientAssertion.verify` bounds `exp` to an hour from now,
/// so the cache holds at most an hour of assertions; they are forgotten as they expire, the
/// earliest first.
///
/// **Bound.** At most `capacity` ids (`IssuerLimits.clientAssertionIDs`, 100,000 by default),
/// each a 32-byte digest of the client id and `jti`. When full, a new assertion is refused
/// (`.full`, answered 503 with `Retry-After`) rather than an unexpired id forgotten: a
/// forgotten id's assertion could be replayed until its `exp`. Only a client holding a
/// registered key can add ids (the assertion is verified first), and 100,000 within an hour is
/// far above what one app's sign-ins need.
struct ClientAssertionReplayCache: Sendable {
    enum Outcome: Sendable, Equatable {
        case recorded
        case replayed
        /// The cap is reached; the assertion is refused rather than forgetting ids early.
        case full
    }

    /// The most ids held.
    let capacity: Int
    /// Expiry by digest of `client_id` and `jti`, which together name an assertion (two clients
    /// may pick the same `jti`).
    private var expiries: [TokenHash: Int64] = [:]
    private var queue = ExpiryQueue<TokenHash>()

    init(capacity: Int = IssuerLimits.default.clientAssertionIDs) { self.capacity = capacity }

    var count: Int { expiries.count }

    /// When the earliest id held expires (for `Retry-After` when full).
    var nextExpiry: Int64? { queue.nextExpiry }

    /// The key an assertion is remembered under.
    static func key(clientID: String, id: String) -> TokenHash { TokenHash(of: clientID + "\u{0}" + id) }

    /// Records an assertion; `.replayed` when its `jti` was already used by the same client.
    /// Expired entries are forgotten first.
    mutating func use(_ key: TokenHash, expiresAt: Int64, now: Int64) -> Outcome {
        while let expired = queue.popExpired(now: now) {
            if let expiry = expiries[expired], expiry <= now { expiries.removeValue(forKey: expired) }
        }
        guard expiries[key] == nil else { return .replayed }
        guard expiries.count < capacity else { return .full }
        expiries[key] = expiresAt
        queue.insert(key, expiresAt: expiresAt)
        return .recorded
    }

    /// `use` with the key made here.
    mutating func use(clientID: String, id: String, expiresAt: Int64, now: Int64) -> Outcome {
        use(ClientAssertionReplayCache.key(clientID: clientID, id: id), expiresAt: expiresAt, now: now)
    }
}
