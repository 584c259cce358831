import JOSE
import OAuthCore

extension AuditRun {
    /// DPoP (RFC 9449), when discovery advertises ES256 proofs.
    func dpopChecks() async throws {
        let checks: [AuditCheck] = [.dpopTokenBound, .dpopRefreshBound, .dpopJKTBound, .dpopNonceChecked]
        guard let algorithms = metadata?.dpopAlgorithms else {
            skipAll(checks, "discovery does not advertise DPoP (dpop_signing_alg_values_supported)")
            return
        }
        guard algorithms.contains(JWSAlgorithm.es256.rawValue) else {
            skipAll(
                checks,
                "DPoP is advertised without ES256 (\(algorithms.joined(separator: ", "))), the key this audit proves with"
            )
            return
        }
        var bound: (flow: CodeFlow, key: JWSSigner)?
        try await check(.dpopTokenBound) {
            let key = try probe.newDPoPKey()
            let flow = try await codeFlow(dpop: key)
            bound = (flow, key)
            let type = flow.answer.tokenType ?? "(none)"
            return type.lowercased() == "dpop"
                ? .pass("the code redeemed with a DPoP proof answered token_type DPoP")
                : .broken(
                    "the code redeemed with a DPoP proof answered token_type \(type): the tokens are bound to no key"
                )
        }
        try await check(.dpopRefreshBound) {
            guard let bound else { return .skip("the DPoP code flow did not run") }
            cite(bound.flow.evidence)
            guard bound.flow.answer.tokenType?.lowercased() == "dpop" else {
                return .skip("the tokens were not DPoP-bound to begin with")
            }
            guard !target.client.isConfidential else {
                return .skip(
                    "a confidential client's refresh token is bound to its credentials, not to the key (RFC 9449 §5)"
                )
            }
            guard let token = bound.flow.answer.refreshToken else {
                return .skip("no refresh token was issued")
            }
            let answer = try await refresh(token, dpop: try probe.newDPoPKey())
            return answer.succeeded
                ? .broken("the DPoP-bound refresh token was refreshed with a proof of another key")
                : .pass("a proof of another key was refused: \(answer.described)")
        }
        try await check(.dpopJKTBound) {
            let key = try probe.newDPoPKey()
            let thumbprint = try key.publicJWK.thumbprint()
            let authorization = try await authorize(extra: ["dpop_jkt": thumbprint])
            guard authorization.end.code != nil else {
                return .skip("the request with dpop_jkt got no code: \(authorization.end.described)")
            }
            let answer = try await redeem(authorization, dpop: try probe.newDPoPKey())
            return answer.succeeded
                ? .broken("a code requested with dpop_jkt was redeemed with a proof of another key")
                : .pass("a proof of a key other than dpop_jkt's was refused: \(answer.described)")
        }
        try await check(.dpopNonceChecked) { try await nonceChecked() }
    }

    /// Whether the issuer wants server nonces (a proof without one refused with
    /// `use_dpop_nonce`), and if so, that one it never issued is refused as well (RFC 9449 §8).
    private func nonceChecked() async throws -> Verdict {
        let first = try await authorize()
        guard first.end.code != nil else { return .skip("no code came: \(first.end.described)") }
        let withoutNonce = try await redeem(first, dpop: try probe.newDPoPKey(), followsNonce: false)
        guard withoutNonce.error == "use_dpop_nonce" else {
            return withoutNonce.succeeded
                ? .pass(
                    "a proof without a nonce was accepted: the issuer wants no server nonce (RFC 9449 §8 lets it)"
                )
                : .skip("a proof without a nonce got \(withoutNonce.described), which says nothing of nonces")
        }
        let second = try await authorize()
        guard second.end.code != nil else { return .skip("no code came: \(second.end.described)") }
        let invented = "signinsim-audit-" + probe.randomString()
        let answer = try await redeem(
            second, dpop: try probe.newDPoPKey(), dpopNonce: invented, followsNonce: false)
        if answer.succeeded {
            return .broken("the issuer wants nonces, but a proof with one it never issued was accepted")
        }
        return answer.error == "use_dpop_nonce"
            ? .pass("the issuer wants nonces, and one it never issued was answered use_dpop_nonce")
            : .pass("the issuer wants nonces, and one it never issued was refused: \(answer.described)")
    }
}
