import Cryptography
import JOSE
import OAuthCore
import Testing

@testable import Issuer

/// The issuer's DPoP rules (RFC 9449) as decisions on facts and `now`: the proof's age policy,
/// the server nonce and `jti` replay (`IssuerState.admitDPoPProof`), and how a resource's
/// token must be presented (`ResourceTokenPresentation`). No HTTP. The stateless checks of a
/// proof against its request (`htm`, `htu`, `iat`, `ath`) are `DPoPProof.check`, tested in
/// `DPoPProofTests`.
@Suite struct DPoPAdmissionTests {
    static let withoutNonces = DPoPProofPolicy(requireNonce: false, proofWindow: 60)
    static let withNonces = DPoPProofPolicy(requireNonce: true, proofWindow: 60)

    /// A state, and the nonces it minted ("n1", "n2"…).
    struct Fixture {
        var state: IssuerState
        var minted = 0

        init() throws {
            state = IssuerState(
                tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
        }

        mutating func admit(_ jti: String, nonce: String? = nil, policy: DPoPProofPolicy, now: Int64)
            -> DPoPProofAdmission
        {
            var minted = self.minted
            defer { self.minted = minted }
            return state.admitDPoPProof(
                id: TokenHash(of: "jkt." + jti), nonce: nonce, policy: policy, now: now,
                mintNonce: {
                    minted += 1
                    return "n\(minted)"
                })
        }
    }

    /// §4.3 check 11, §11.1: with nonces the nonce judges the age and `iat` is not compared;
    /// ids are kept for the longest a proof stays acceptable.
    @Test func theProofsAgeIsJudgedByIatOrByTheNonce() throws {
        #expect(Self.withoutNonces.issuedAtWindow == 60)
        #expect(Self.withoutNonces.replayWindow == 60)
        #expect(Self.withNonces.issuedAtWindow == nil)
        #expect(Self.withNonces.replayWindow == 3 * Issuer.dpopNonceLifetime)

        let signer = try JWSSigner(key: .p256(try P256PrivateKey()), algorithm: .es256)
        let proof = try DPoPProof.parse(
            try DPoPProof.make(
                signer: signer, method: "POST", url: "https://as.example/token", issuedAt: 1000, id: "j"))
        let url = ["https://as.example/token"]
        // An hour off: refused by the iat window, accepted when the nonce judges the age.
        #expect(throws: OAuthError.self) {
            try proof.check(
                method: "POST", urls: url, now: 4600, window: Self.withoutNonces.issuedAtWindow,
                accessToken: nil)
        }
        try proof.check(
            method: "POST", urls: url, now: 4600, window: Self.withNonces.issuedAtWindow, accessToken: nil)
    }

    /// §11.1: a `jti` is accepted once (per key) within the window.
    @Test func aReplayedJTIIsRefused() throws {
        var fixture = try Fixture()
        #expect(fixture.admit("a", policy: Self.withoutNonces, now: 100) == .accepted)
        #expect(fixture.admit("a", policy: Self.withoutNonces, now: 150) == .replayed)
        #expect(fixture.admit("b", policy: Self.withoutNonces, now: 150) == .accepted)
        #expect(fixture.minted == 0, "no nonce without require_dpop_nonce")
    }

    /// §8: a tenant that requires nonces refuses a proof without the current or previous one,
    /// naming the nonce to retry with, and the refusal does not use up the proof's `jti`.
    @Test func aRequiredNonceComesBeforeTheReplayCheck() throws {
        var fixture = try Fixture()
        #expect(fixture.admit("a", policy: Self.withNonces, now: 100) == .nonceMissing(current: "n1"))
        #expect(
            fixture.admit("a", nonce: "stale", policy: Self.withNonces, now: 100)
                == .nonceNotCurrent(current: "n1"))
        #expect(fixture.admit("a", nonce: "n1", policy: Self.withNonces, now: 100) == .accepted)
        #expect(fixture.admit("a", nonce: "n1", policy: Self.withNonces, now: 101) == .replayed)
    }

    /// §8: the nonce rotates every lifetime and the previous one stays accepted; after a quiet
    /// spell of two lifetimes, or when the clock moves back, both are forgotten.
    @Test func noncesRotateAndAgeOut() throws {
        let lifetime = Issuer.dpopNonceLifetime
        var fixture = try Fixture()
        #expect(fixture.admit("a", policy: Self.withNonces, now: 100) == .nonceMissing(current: "n1"))
        #expect(
            fixture.admit("b", policy: Self.withNonces, now: 100 + lifetime - 1)
                == .nonceMissing(current: "n1"))
        #expect(
            fixture.admit("c", policy: Self.withNonces, now: 100 + lifetime) == .nonceMissing(current: "n2"))
        #expect(fixture.admit("d", nonce: "n1", policy: Self.withNonces, now: 100 + lifetime) == .accepted)
        #expect(fixture.admit("e", nonce: "n2", policy: Self.withNonces, now: 100 + lifetime) == .accepted)
        // Two lifetimes after n2 was minted: both forgotten, n3 is the only one.
        let quiet = 100 + 3 * lifetime
        #expect(
            fixture.admit("f", nonce: "n2", policy: Self.withNonces, now: quiet)
                == .nonceNotCurrent(current: "n3"))
        // The clock moves back: n3 no longer stands for the issuer's time.
        #expect(
            fixture.admit("g", nonce: "n3", policy: Self.withNonces, now: quiet - 1)
                == .nonceNotCurrent(current: "n4"))
        #expect(fixture.state.dpopNonces == ["n4"])
    }

    /// A full replay cache refuses new proofs, with when to retry, rather than forget ids early.
    @Test func aFullReplayCacheRefusesWithRetryAfter() throws {
        var fixture = try Fixture()
        fixture.state.dpopProofIDs = DPoPReplayCache(capacity: 1)
        #expect(fixture.admit("a", policy: Self.withoutNonces, now: 100) == .accepted)
        // The generation holding "a" started at 100 and lasts 2 × 60 s; it is dropped after two.
        #expect(fixture.admit("b", policy: Self.withoutNonces, now: 110) == .overloaded(retryAfter: 230))
    }

    /// §7.1–7.2: a bound token only with the DPoP scheme and a proof of its key; an unbound one
    /// only as Bearer.
    @Test func aResourceTokenIsPresentedAsItIsBound() throws {
        #expect(try ResourceTokenPresentation.decide(scheme: "Bearer", boundTo: nil) == .bearer)
        #expect(try ResourceTokenPresentation.decide(scheme: "DPoP", boundTo: "k") == .dpop(boundTo: "k"))
        #expect(throws: OAuthError.self) {
            try ResourceTokenPresentation.decide(scheme: "DPoP", boundTo: nil)
        }
        do {
            _ = try ResourceTokenPresentation.decide(scheme: "Bearer", boundTo: "k")
            Issue.record("a bound token presented as Bearer was accepted")
        } catch {
            #expect(error.code == OAuthErrorCode.invalidToken)
            #expect(error.description.contains("DPoP-bound"))
        }

        #expect(ResourceTokenPresentation.bearer.proofProblem(proofThumbprint: nil) == nil)
        let bound = ResourceTokenPresentation.dpop(boundTo: "k")
        #expect(bound.proofProblem(proofThumbprint: "k") == nil)
        #expect(bound.proofProblem(proofThumbprint: nil)?.description.contains("needs a DPoP proof") == true)
        #expect(bound.proofProblem(proofThumbprint: "other")?.description.contains("not the one") == true)
    }

    /// `dpop-nonce-unchecked`: a nonce is still wanted, but one never issued passes; without the
    /// deviation the same proof is refused with the current nonce.
    @Test func anUncheckedNonceLetsAnInventedOnePass() throws {
        var fixture = try Fixture()
        var unchecked = Self.withNonces
        unchecked.acceptsAnyNonce = true
        #expect(fixture.admit("a", policy: unchecked, now: 1000) == .nonceMissing(current: "n1"))
        #expect(fixture.admit("b", nonce: "invented", policy: unchecked, now: 1000) == .accepted)
        #expect(
            fixture.admit("c", nonce: "invented", policy: Self.withNonces, now: 1000)
                == .nonceNotCurrent(current: "n1"))
    }
}
