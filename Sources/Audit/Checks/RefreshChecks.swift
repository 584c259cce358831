import HTTPCore
import OAuthCore

extension AuditRun {
    /// Rotation, reuse, binding and a race, each on a grant of its own, so that what one check
    /// revokes does not decide another.
    func refreshChecks() async throws {
        var rotation: (rotated: Bool, reuse: AuditProbe.TokenAnswer?, familyAlive: Bool?)?
        let rotationStarted = probe.sent
        try await check(.refreshRotation) {
            let flow = try await codeFlow()
            guard let first = flow.answer.refreshToken else {
                return .skip(
                    "the code flow issued no refresh token (scopes: \(target.scopes.joined(separator: " ")))")
            }
            let refreshed = try await refresh(first)
            guard refreshed.succeeded else { return .skip("the refresh was refused: \(refreshed.described)") }
            guard let second = refreshed.refreshToken, second != first else {
                rotation = (false, nil, nil)
                if refreshed.tokenType?.lowercased() == "dpop" {
                    return .pass("no rotation, but the tokens are DPoP-bound (sender-constrained)")
                }
                return target.client.isConfidential
                    ? .pass("no rotation; the client is confidential, so its refresh token is bound to it")
                    : .broken("a public client's refresh token was not rotated, nor is it sender-constrained")
            }
            // The reuse of the rotated-out token, after a pause the length of a slow retry.
            let reuse = try await refresh(first)
            var familyAlive: Bool?
            if !reuse.succeeded {
                familyAlive = try await refresh(second).succeeded
            }
            rotation = (true, reuse, familyAlive)
            return .pass("the refresh answered a new refresh token")
        }
        let rotationEvidence = rotationStarted < probe.sent ? Array((rotationStarted + 1)...probe.sent) : []
        try await check(.refreshReuseRefused) {
            cite(rotationEvidence)
            guard let rotation else { return .skip("the rotation check did not run to the reuse") }
            guard rotation.rotated, let reuse = rotation.reuse else {
                return .skip("refresh tokens do not rotate, so there is no rotated-out token")
            }
            return reuse.succeeded
                ? .broken(
                    "the rotated-out refresh token was accepted again (a grace period, or no reuse detection)"
                )
                : .pass("the rotated-out refresh token was refused: \(reuse.described)")
        }
        try await check(.refreshReuseRevokesFamily) {
            cite(rotationEvidence)
            guard let rotation, rotation.rotated, let reuse = rotation.reuse else {
                return .skip("refresh tokens do not rotate, so there is no reuse to detect")
            }
            guard !reuse.succeeded, let familyAlive = rotation.familyAlive else {
                return .skip("the rotated-out token was accepted, so there was no reuse to answer")
            }
            return familyAlive
                ? .broken("after the reuse, the newest refresh token still works: a thief's copy would too")
                : .pass(
                    "after the reuse, the newest refresh token was refused as well (the family is revoked)")
        }
        try await check(.refreshBoundToClient) {
            guard let other = target.otherClient else {
                return .skip("no second client is registered (--other-client-id)")
            }
            let flow = try await codeFlow()
            guard let token = flow.answer.refreshToken else {
                return .skip("the code flow issued no refresh token")
            }
            let answer = try await refresh(token, client: other)
            return answer.succeeded
                ? .broken("client \(other.id) refreshed \(target.client.id)'s refresh token")
                : .pass(
                    "client \(other.id) was refused \(target.client.id)'s refresh token: \(answer.described)")
        }
        try await check(.refreshRace) { try await race() }
        refreshProfile = Self.closestProfile(rotation)
    }

    /// Two refreshes of one token at once, as two API calls of an app without single-flight
    /// refresh send them; then each new refresh token is tried. The rule: the race must not
    /// leave two live branches of the grant (RFC 9700 §4.14.2: a rotated token used twice is
    /// how theft shows).
    private func race() async throws -> Verdict {
        let flow = try await codeFlow()
        guard let token = flow.answer.refreshToken else {
            return .skip("the code flow issued no refresh token")
        }
        let answers = try await refreshTogether(token, times: 2)
        if target.racePause > .zero { try await Task.sleep(for: target.racePause) }
        let won = answers.filter(\.succeeded)
        let described = answers.map(\.described).joined(separator: " and ")
        let newTokens = Set(won.compactMap(\.refreshToken)).subtracting([token])
        guard newTokens.count == 2 else {
            return .pass(
                "the racing pair got \(described)"
                    + (newTokens.count == 1 ? "; one new refresh token came of it" : ""))
        }
        var live = 0
        for newToken in newTokens where try await refresh(newToken).succeeded { live += 1 }
        return live == 2
            ? .broken(
                "the racing pair got two different new refresh tokens, and both refreshed: two live branches")
            : .pass("the racing pair got two new refresh tokens; \(live) of them still refreshed afterwards")
    }

    /// `times` refreshes of `token` sent at once.
    private func refreshTogether(_ token: String, times: Int) async throws -> [AuditProbe.TokenAnswer] {
        let (probe, endpoint, client, request) = (
            probe, tokenEndpoint, target.client, Self.refreshForm(token)
        )
        let method = method(for: client)
        return try await withThrowingTaskGroup(of: AuditProbe.TokenAnswer.self) { group in
            for _ in 0..<times {
                group.addTask {
                    try await probe.token(request, endpoint: endpoint, client: client, method: method)
                }
            }
            var answers: [AuditProbe.TokenAnswer] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
    }

    /// The issuer rotation profile (`refresh_rotation` of the embedded issuer, docs/issuer.md)
    /// whose rules explain what the rotation checks saw.
    static func closestProfile(_ seen: (rotated: Bool, reuse: AuditProbe.TokenAnswer?, familyAlive: Bool?)?)
        -> String?
    {
        guard let seen else { return nil }
        guard seen.rotated, let reuse = seen.reuse else {
            return "none: refresh tokens do not rotate (Auth0 and Okta without rotation)"
        }
        if reuse.succeeded {
            return "okta: a rotated-out token is accepted again right away, as in a grace period "
                + "(Okta's grace, Auth0's reuse interval, django-oauth-toolkit's grace period)"
        }
        return seen.familyAlive == true
            ? "django-oauth-toolkit: a rotated-out token is refused and the newer ones stay valid "
                + "(signinsim with on_reuse: refuse; django-oidc-provider)"
            : "signinsim: a rotated-out token is refused and revokes the family (reuse detection; "
                + "also Auth0 and Okta past their intervals)"
    }
}
