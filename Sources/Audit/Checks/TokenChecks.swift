import HTTPCore
import OAuthCore

extension AuditRun {
    func tokenChecks() async throws {
        try await check(.tokenCodeSingleUse) { try await codeUsedTwice().single }
        try await check(.tokenCodeReuseRevokes) { try await codeUsedTwice().revokes }
        try await check(.tokenCodeBoundToRedirectURI) {
            let authorization = try await authorize()
            guard authorization.end.code != nil else {
                return .skip("no code came: \(authorization.end.described)")
            }
            let other = RedirectURIVariants.extraPath(authorization.redirectURI)
            let answer = try await redeem(authorization, redirectURI: other)
            return answer.succeeded
                ? .broken("the code was redeemed with redirect_uri \(other), not the one it was issued for")
                : .pass("redirect_uri \(other) was refused: \(answer.described)")
        }
        try await check(.tokenCodeBoundToVerifier) {
            let authorization = try await authorize()
            guard authorization.end.code != nil else {
                return .skip("no code came: \(authorization.end.described)")
            }
            let answer = try await redeem(authorization, verifier: .some(probe.newPKCE().verifier))
            return answer.succeeded
                ? .broken("the code was redeemed with another code_verifier than its challenge's")
                : .pass("a wrong code_verifier was refused: \(answer.described)")
        }
        try await check(.tokenCodeBoundToClient) {
            guard let other = target.otherClient else {
                return .skip("no second client is registered (--other-client-id)")
            }
            let authorization = try await authorize()
            guard authorization.end.code != nil else {
                return .skip("no code came: \(authorization.end.described)")
            }
            let answer = try await redeem(authorization, client: other)
            return answer.succeeded
                ? .broken("client \(other.id) redeemed a code issued to \(target.client.id)")
                : .pass("client \(other.id) was refused \(target.client.id)'s code: \(answer.described)")
        }
        try await check(.tokenPKCEDowngradeRefused) {
            let authorization = try await authorize(pkce: .none)
            guard authorization.end.code != nil else {
                return .pass("no code is issued without code_challenge, so none can be downgraded")
            }
            let answer = try await redeem(authorization, verifier: .some(probe.newPKCE().verifier))
            return answer.succeeded
                ? .broken(
                    "a code issued without code_challenge was redeemed with a code_verifier: PKCE downgrade")
                : .pass(
                    "a code_verifier for a code issued without a challenge was refused: \(answer.described)")
        }
        try await check(.tokenAuthMethods) { try await authenticationMethods() }
    }

    /// Redeems one code twice, then asks whether the first redemption's access token still
    /// works; run once for both checks.
    private func codeUsedTwice() async throws -> (single: Verdict, revokes: Verdict) {
        if let cached = caches.codeReuse {
            cite(cached.evidence)
            return cached.verdicts
        }
        let ((single, revokes), evidence) = try await exchanges { () async throws -> (Verdict, Verdict) in
            let authorization = try await authorize()
            guard authorization.end.code != nil else {
                let skip = Verdict.skip("no code came: \(authorization.end.described)")
                return (skip, skip)
            }
            let first = try await redeem(authorization)
            guard first.succeeded, let accessToken = first.accessToken else {
                let skip = Verdict.skip("the code's first redemption failed: \(first.described)")
                return (skip, skip)
            }
            let second = try await redeem(authorization)
            if second.succeeded {
                return (
                    .broken("the code was redeemed a second time, for new tokens"),
                    .skip("the second redemption was accepted, so there was no reuse to answer")
                )
            }
            let single = Verdict.pass("the second redemption was refused: \(second.described)")
            guard let works = try await accessTokenWorks(accessToken, tokenType: first.tokenType) else {
                return (single, .skip("no UserInfo endpoint to try the first access token at"))
            }
            var revoked = !works
            var detail = works ? "still works at UserInfo" : "is refused at UserInfo"
            if let refreshToken = first.refreshToken {
                let refreshed = try await refresh(refreshToken)
                revoked = revoked && !refreshed.succeeded
                detail += "; its refresh token got \(refreshed.described)"
            }
            return (
                single,
                revoked
                    ? .pass("after the reuse, the first redemption's access token \(detail)")
                    : .broken("after the reuse, the first redemption's access token \(detail)")
            )
        }
        caches.codeReuse = (evidence, (single, revokes))
        return (single, revokes)
    }

    /// The secret methods discovery advertises work with the client's secret, and those it
    /// does not are refused (OpenID Connect Discovery §3, Core §9). A client registered for one
    /// method (`--other-client-auth-method`) is held to it: the advertised list is the
    /// endpoint's, and a registration may narrow it (OpenID Connect Dynamic Registration §2).
    private func authenticationMethods() async throws -> Verdict {
        let confidential = [target.client, target.otherClient].compactMap { $0 }.first { $0.secret != nil }
        guard let client = confidential else {
            return .skip(
                "the audited clients have no secret, so only none can be tried, which every flow uses")
        }
        let advertised = metadata?.authMethods ?? []
        let secretMethods = [TokenEndpointAuthMethod.clientSecretBasic, .clientSecretPost]
        let expected = client.method.map { [$0] } ?? secretMethods.filter { advertised.contains($0.rawValue) }
        guard !expected.isEmpty else {
            return .skip("discovery advertises neither client_secret_basic nor client_secret_post")
        }
        if let registered = client.method, !advertised.contains(registered.rawValue) {
            return .broken(
                "\(client.id) is registered for \(registered.rawValue), which discovery does not advertise")
        }
        var problems: [String] = []
        var worked: [String] = []
        for method in secretMethods where expected.contains(method) || !advertised.contains(method.rawValue) {
            var sender = client
            sender.method = method
            let authorization = try await authorize(client: sender)
            guard authorization.end.code != nil else {
                return .skip("no code came for \(client.id): \(authorization.end.described)")
            }
            let answer = try await redeem(authorization, client: sender)
            switch (expected.contains(method), answer.succeeded) {
            case (true, true): worked.append(method.rawValue)
            case (true, false): problems.append("\(method.rawValue) was refused (\(answer.described))")
            case (false, true): problems.append("\(method.rawValue), not advertised, was accepted")
            case (false, false): break
            }
        }
        return problems.isEmpty
            ? .pass("\(client.id) redeemed codes with \(worked.joined(separator: " and "))")
            : .broken("\(client.id): \(problems.joined(separator: "; "))")
    }

    /// A code redeemed after ten minutes and a second (RFC 6749 §4.1.2: a maximum lifetime of
    /// ten minutes is RECOMMENDED; the check takes it as the limit). Last, since it moves the
    /// embedded issuer's clock.
    func codeLifetimeCheck() async throws {
        try await check(.tokenCodeLifetime) {
            let authorization = try await authorize()
            guard authorization.end.code != nil else {
                return .skip("no code came: \(authorization.end.described)")
            }
            guard await probe.wait(601) else {
                return .skip("waiting out ten minutes against a real issuer needs --wait-code-expiry")
            }
            let answer = try await redeem(authorization)
            return answer.succeeded
                ? .broken("the code was still redeemed 601 s after it was issued")
                : .pass("601 s after it was issued the code was refused: \(answer.described)")
        }
    }
}
