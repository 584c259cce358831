import OAuthCore

/// How a tenant judges the age of DPoP proofs (RFC 9449 §4.3 check 11, §8, §11.1).
struct DPoPProofPolicy: Sendable, Equatable {
    /// Whether proofs must carry a current server nonce (`require_dpop_nonce`).
    var requireNonce: Bool
    /// Whether any nonce passes for a current one (deviation `dpop-nonce-unchecked`).
    var acceptsAnyNonce = false
    /// How far a proof's `iat` may be from the issuer's time (`dpop_proof_window`).
    var proofWindow: Int64

    /// The window `DPoPProof.check` compares `iat` against; `nil` when nonces are required:
    /// the nonce, which holds the issuer's time, judges the age instead (§4.3 check 11, §11.1:
    /// "the same result even in the face of arbitrarily large clock skews").
    var issuedAtWindow: Int64? { requireNonce ? nil : proofWindow }

    /// How long a proof stays acceptable, which the replay cache keeps its `jti` for at least
    /// twice of (§11.1): the window either side of `iat`, or the age of the oldest nonce
    /// accepted (three nonce lifetimes, `IssuerState.currentDPoPNonce`).
    var replayWindow: Int64 { requireNonce ? 3 * Issuer.dpopNonceLifetime : proofWindow }
}

/// What the issuer's state says of a DPoP proof that passed the stateless checks
/// (`DPoPProof.parse` and `check`): the server nonce (RFC 9449 §8) and `jti` replay (§11.1).
enum DPoPProofAdmission: Sendable, Equatable {
    case accepted
    /// §8: the tenant requires a nonce and the proof carries none; `current` is the one to use.
    case nonceMissing(current: String)
    /// §8: the proof's nonce is neither the current nor the previous one.
    case nonceNotCurrent(current: String)
    /// §11.1: a proof with this key and `jti` was accepted within the window.
    case replayed
    /// The replay cache is full (`DPoPReplayCache`); the proof is refused rather than an id
    /// forgotten early, and may be retried after this many seconds.
    case overloaded(retryAfter: Int64)
}

extension IssuerState {
    /// Whether a proof that passed the stateless checks is accepted, recording its `jti` if it
    /// is (RFC 9449 §4.3 checks 10 and 12). The nonce is checked first, so that a proof
    /// refused for its nonce does not use up its `jti`: the client retries with the same `jti`
    /// and the nonce it was given (§8).
    ///
    /// - Parameters:
    ///   - proofID: the digest of the proof's key thumbprint and `jti` (`TokenHash(of: "<jkt>.<jti>")`).
    ///   - nonce: the proof's `nonce` claim.
    ///   - mintNonce: a fresh random nonce, called only when the current one is due to rotate.
    mutating func admitDPoPProof(
        id proofID: TokenHash, nonce: String?, policy: DPoPProofPolicy, now: Int64, mintNonce: () -> String
    ) -> DPoPProofAdmission {
        if policy.requireNonce {
            let current = currentDPoPNonce(now: now, mintNonce: mintNonce)
            guard let nonce else { return .nonceMissing(current: current) }
            guard dpopNonces.contains(nonce) || policy.acceptsAnyNonce else {
                return .nonceNotCurrent(current: current)
            }
        }
        let window = policy.replayWindow
        switch dpopProofIDs.record(proofID, now: now, window: window) {
        case .recorded: return .accepted
        case .replayed: return .replayed
        case .full:
            return .overloaded(retryAfter: max(1, (dpopProofIDs.nextForgetting(window: window) ?? now) - now))
        }
    }

    /// The nonce clients must put in their next proof (RFC 9449 §8), rotated every
    /// `Issuer.dpopNonceLifetime` seconds of issuer time; the previous one is still accepted
    /// until the current one is a lifetime old. Nonces are rotated as requests come, so after a
    /// quiet spell of two lifetimes or more both are forgotten, as they are when the clock
    /// moves back: a nonce stands for the issuer's time, and an accepted one is never more than
    /// three lifetimes old.
    mutating func currentDPoPNonce(now: Int64, mintNonce: () -> String) -> String {
        let lifetime = Issuer.dpopNonceLifetime
        if dpopNonces.isEmpty || now - dpopNonceIssuedAt >= lifetime || now < dpopNonceIssuedAt {
            if now - dpopNonceIssuedAt >= 2 * lifetime || now < dpopNonceIssuedAt { dpopNonces.removeAll() }
            dpopNonces.insert(mintNonce(), at: 0)
            if dpopNonces.count > 2 { dpopNonces.removeLast(dpopNonces.count - 2) }
            dpopNonceIssuedAt = now
        }
        return dpopNonces[0]
    }
}

/// How a protected resource request presents its access token (RFC 9449 §7.1–7.2): a
/// DPoP-bound token only with the `DPoP` scheme and a proof signed with its key, an unbound
/// one only as `Bearer`.
enum ResourceTokenPresentation: Sendable, Equatable {
    /// `Bearer` and an unbound token: no proof is needed.
    case bearer
    /// `DPoP` and a token bound to this key thumbprint: a proof signed with that key is needed.
    case dpop(boundTo: String)

    /// The presentation of a token under `scheme` (`Bearer` or `DPoP`, canonical), bound to
    /// `thumbprint` (its `cnf.jkt`, RFC 9449 §6.1) or not.
    /// - Throws: 401 `invalid_token` when scheme and binding disagree (§7.2).
    static func decide(scheme: String, boundTo thumbprint: String?) throws(OAuthError)
        -> ResourceTokenPresentation
    {
        if scheme == "DPoP" {
            guard let thumbprint else {
                throw .invalidToken(
                    "the access token is not DPoP-bound; present it as Bearer", scheme: scheme)
            }
            return .dpop(boundTo: thumbprint)
        }
        guard thumbprint == nil else {
            throw .invalidToken(
                "the access token is DPoP-bound; present it with the DPoP scheme and a proof (RFC 9449 §7.2)")
        }
        return .bearer
    }

    /// Why the request's verified proof (`nil` without one) does not satisfy this presentation
    /// (RFC 9449 §7.1: the proof's key must be the token's), before the resource's challenge
    /// is added.
    func proofProblem(proofThumbprint: String?) -> OAuthError? {
        guard case .dpop(let binding) = self else { return nil }
        guard let proofThumbprint else {
            return .invalidDPoPProof("the DPoP scheme needs a DPoP proof header")
        }
        guard proofThumbprint == binding else {
            return .invalidDPoPProof("the DPoP proof's key is not the one the access token is bound to")
        }
        return nil
    }
}
