import HTTPCore
import OAuthCore

/// DPoP proof `jti`s seen recently (RFC 9449 §11.1), kept in two generations of
/// `2 × window` seconds each, so that forgetting costs nothing per request and no sweep walks
/// the set.
///
/// A proof is only accepted while its `iat` is within `window` of now, and an id is recorded no
/// earlier than `iat − window`; so a replay can arrive at most `2 × window` after the id was
/// recorded, and an id survives at least one full generation after the one it was recorded in.
/// The oldest ids go first: a whole generation at a time, once it has aged out.
///
/// **Bound.** At most `capacity` ids (`IssuerLimits.dpopProofIDs`, 1,000,000 by default), each
/// kept as a 32-byte SHA-256 digest of the key thumbprint and `jti` (a `jti` may be 256 bytes),
/// so about 32 MB of digests at the bound, plus the sets' slack. When it is full a new proof is
/// refused (`.full`, answered 503 with `Retry-After`) instead of an id being forgotten early:
/// §11.1 has the server remember a `jti` for as long as its proof would be accepted, and an id
/// forgotten inside that time could be replayed. Refusing trades availability for that: a flood
/// of more than `capacity` proofs within four windows (more than about 4,000 a second at the
/// default 60 s) makes DPoP requests wait, but never lets a captured proof be used twice.
struct DPoPReplayCache: Sendable {
    enum Outcome: Sendable, Equatable {
        case recorded
        case replayed
        /// The cap is reached; the proof is refused rather than forgetting ids early.
        case full
    }

    /// The most ids held, across both generations.
    let capacity: Int

    private var current: Set<TokenHash> = []
    private var previous: Set<TokenHash> = []
    private var generationStart: Int64?

    init(capacity: Int = IssuerLimits.default.dpopProofIDs) { self.capacity = capacity }

    var count: Int { current.count + previous.count }

    /// When the oldest ids held will have aged out (for `Retry-After` when full).
    func nextForgetting(window: Int64) -> Int64? {
        guard let start = generationStart else { return nil }
        let span = max(1, 2 * window)
        // The next generation change drops `previous`; with none, the one after drops `current`.
        return previous.isEmpty ? start + 2 * span : start + span
    }

    /// Records `id` (the proof's key thumbprint and `jti`) unless it was seen within the window.
    mutating func record(_ id: String, now: Int64, window: Int64) -> Outcome {
        record(TokenHash(of: id), now: now, window: window)
    }

    /// Records an id's digest unless it was seen within the window.
    mutating func record(_ id: TokenHash, now: Int64, window: Int64) -> Outcome {
        let span = max(1, 2 * window)
        if let start = generationStart, now >= start {
            if now - start >= 2 * span {
                current.removeAll()
                previous.removeAll()
                generationStart = now
            } else if now - start >= span {
                previous = current
                current = []
                generationStart = now
            }
        } else {
            // First use, or the clock moved back: start a generation here and forget nothing.
            generationStart = now
        }
        if current.contains(id) || previous.contains(id) { return .replayed }
        guard count < capacity else { return .full }
        current.insert(id)
        return .recorded
    }
}

extension Issuer {
    /// How long a DPoP server nonce is current (RFC 9449 §8): the previous one stays accepted as
    /// long again.
    static let dpopNonceLifetime: Int64 = 60

    /// Where a DPoP proof is checked, which decides how failures are reported.
    enum DPoPEndpoint: Sendable {
        /// The token endpoint: 400 with a JSON error (RFC 9449 §5, §8).
        case token
        /// A protected resource: the access token the proof must be bound to (`ath`).
        case resource(accessToken: String)
    }

    /// Reads and checks the request's DPoP proof (RFC 9449 §4.3); `nil` when there is none.
    ///
    /// Stateless checks (shape, key, signature, `htm`, `htu`, `iat`, `ath`) run first, outside
    /// the lock; then, in one lock, the server nonce (when the tenant requires one) and the `jti`
    /// replay check, so that a proof refused for its nonce does not use up its `jti`.
    ///
    /// The proof's age: without nonces, its `iat` must be within `dpop_proof_window` of the
    /// issuer's time. A tenant that requires nonces judges the age by the nonce instead, which
    /// holds the issuer's time (§4.3 check 11, §11.1: "the same result even in the face of
    /// arbitrarily large clock skews"): an accepted nonce is at most three nonce lifetimes old,
    /// and `iat` is not compared, so that a phone whose clock is off can still sign in.
    /// - Throws: 400 `invalid_dpop_proof` or `use_dpop_nonce` (with a fresh `DPoP-Nonce`).
    func verifyDPoPProof(_ request: HTTPRequest, endpoint: DPoPEndpoint, now: Int64) throws(OAuthError)
        -> DPoPProof?
    {
        let fields = request.headers.values(for: "DPoP")
        guard !fields.isEmpty else { return nil }
        guard fields.count == 1 else {
            throw .invalidDPoPProof(
                "the request carries \(fields.count) DPoP headers; RFC 9449 §4.3 allows one")
        }
        let proof = try DPoPProof.parse(fields[0])
        var accessToken: String?
        if case .resource(let token) = endpoint { accessToken = token }
        let unchecked = tenant.deviates(.dpopNonceUnchecked)
        let policy = DPoPProofPolicy(
            requireNonce: tenant.requireDPoPNonce || unchecked, acceptsAnyNonce: unchecked,
            proofWindow: tenant.lifetimes.dpopProofWindow)
        try proof.check(
            method: request.method.rawValue, urls: [request.urlWithoutQuery, url(request.path)], now: now,
            window: policy.issuedAtWindow, accessToken: accessToken)
        // Hashed outside the lock: the cache keeps digests, not the (up to 300-byte) ids.
        let proofID = TokenHash(of: proof.thumbprint + "." + proof.id)
        let admission = state.withLock { state in
            state.admitDPoPProof(
                id: proofID, nonce: proof.nonce, policy: policy, now: now,
                mintNonce: { randomValue(byteCount: 16) })
        }
        switch admission {
        case .accepted:
            return proof
        case .nonceMissing(let current):
            throw Issuer.useDPoPNonce("has no nonce", current: current)
        case .nonceNotCurrent(let current):
            throw Issuer.useDPoPNonce("carries a nonce that is not current", current: current)
        case .replayed:
            throw .invalidDPoPProof("the DPoP proof's jti was already used (RFC 9449 §11.1)")
        case .overloaded(let retryAfter):
            throw OAuthError(
                OAuthErrorCode.temporarilyUnavailable,
                "too many DPoP proofs within the window; retry shortly",
                status: 503, headers: ["Retry-After": String(retryAfter)])
        }
    }

    /// RFC 9449 §8: `use_dpop_nonce`, with the nonce to retry with.
    private static func useDPoPNonce(_ problem: String, current: String) -> OAuthError {
        OAuthError(
            OAuthErrorCode.useDPoPNonce, "the DPoP proof \(problem); retry with the DPoP-Nonce given",
            headers: ["DPoP-Nonce": current])
    }

    /// The current nonce for a response header, or `nil` when the tenant uses no nonces.
    func dpopNonceHeader(now: Int64) -> String? {
        guard tenant.requireDPoPNonce else { return nil }
        return state.withLock { $0.currentDPoPNonce(now: now, mintNonce: { randomValue(byteCount: 16) }) }
    }
}
