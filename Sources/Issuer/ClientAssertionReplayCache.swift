/// The `jti`s of `private_key_jwt` assertions already used, each kept until its assertion
/// expires: OpenID Connect Core §9 makes an assertion single-use, RFC 7523 §3 item 7 lets the
/// server enforce it. `ClientAssertion.verify` bounds `exp` to an hour from now, so the cache
/// holds at most an hour of assertions.
struct ClientAssertionReplayCache: Sendable {
    /// Expiry by `client_id` and `jti`, which together name an assertion (two clients may
    /// pick the same `jti`).
    private var expiries: [String: Int64] = [:]
    private var queue = ExpiryQueue<String>()

    var count: Int { expiries.count }

    /// Records an assertion; `false` when its `jti` was already used by the same client.
    /// Expired entries are forgotten first.
    mutating func use(clientID: String, id: String, expiresAt: Int64, now: Int64) -> Bool {
        while let expired = queue.popExpired(now: now) {
            if let expiry = expiries[expired], expiry <= now { expiries.removeValue(forKey: expired) }
        }
        let key = clientID + "\u{0}" + id
        guard expiries[key] == nil else { return false }
        expiries[key] = expiresAt
        queue.insert(key, expiresAt: expiresAt)
        return true
    }
}
