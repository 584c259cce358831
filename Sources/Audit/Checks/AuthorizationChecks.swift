import HTTPCore
import OAuthCore

extension AuditRun {
    func authorizationChecks() async throws {
        try await check(.authorizeStateEchoed) { try await stateEchoed() }
        try await check(.authorizeIssResponse) { try await issInResponse() }
        try await check(.authorizePKCERequired) { try await pkceRequired() }
        try await check(.authorizePlainRefused) { try await plainRefused() }
        let redirectURI = target.redirectURI
        let variants: [(AuditCheck, String?, String)] = [
            (.authorizeRedirectExtraPath, RedirectURIVariants.extraPath(redirectURI), "added path"),
            (
                .authorizeRedirectTrailingSlash, RedirectURIVariants.trailingSlash(redirectURI),
                "a trailing slash"
            ),
            (.authorizeRedirectExtraQuery, RedirectURIVariants.extraQuery(redirectURI), "an added query"),
            (.authorizeRedirectCase, RedirectURIVariants.otherCase(redirectURI), "its path in other case"),
            (.authorizeRedirectUserInfo, RedirectURIVariants.userInfo(redirectURI), "an added user part"),
        ]
        for (check, variant, what) in variants {
            try await self.check(check) {
                guard let variant else { return .skip("the redirect URI has no \(what) variant") }
                return try await nearMiss(variant, of: redirectURI, what: what)
            }
        }
        try await check(.authorizeLoopbackAnyPort) { try await loopbackAnyPort() }
        try await check(.authorizeLocalhost) { try await localhostRefused() }
        try await check(.authorizePrivateUseScheme) { try await privateUseScheme() }
        try await check(.authorizeErrorsRedirected) { try await errorsRedirected() }
    }

    /// The first flow's response carries the `state` the app sent (RFC 6749 §4.1.2).
    private func stateEchoed() async throws -> Verdict {
        let authorization = try await mainFlow().authorization
        guard let returned = authorization.end.parameters?[OAuthParameter.state] else {
            return .broken("the response carried no state (the app sent one)")
        }
        return returned == authorization.state
            ? .pass("the response's state is the one the app sent")
            : .broken("the response's state is not the one the app sent")
    }

    /// `iss` is the issuer when present, and present when discovery promises it (RFC 9207 §2).
    private func issInResponse() async throws -> Verdict {
        let flow = try await mainFlow()
        let promised = metadata?.bool("authorization_response_iss_parameter_supported") == true
        guard let iss = flow.authorization.end.parameters?["iss"] else {
            return promised
                ? .broken(
                    "discovery promises iss in authorization responses (RFC 9207 §3), but this one has none")
                : .pass("no iss in the response, and discovery does not promise one")
        }
        return iss == target.issuer
            ? .pass("iss is \(iss)") : .broken("iss is \(iss), not the issuer \(target.issuer)")
    }

    /// A registered loopback redirect URI on another port is accepted (RFC 8252 §7.3).
    private func loopbackAnyPort() async throws -> Verdict {
        guard let loopback = target.loopbackRedirectURI, let other = RedirectURIVariants.otherPort(loopback)
        else {
            return .skip("no loopback redirect URI is registered (--loopback-redirect-uri)")
        }
        let authorization = try await authorize(redirectURI: other)
        if authorization.codeCame(to: other) {
            return .pass("\(other) was accepted (registered: \(loopback))")
        }
        return .broken(
            "\(other) was refused although \(loopback) is registered: \(authorization.end.described)")
    }

    /// A registered private-use scheme redirect URI (RFC 8252 §7.1) gets the code: the redirect
    /// an iOS app's sheet (`ASWebAuthenticationSession`'s callback scheme) or an Android app's
    /// intent filter waits for.
    private func privateUseScheme() async throws -> Verdict {
        guard let uri = target.privateUseRedirectURI else {
            return .skip("no private-use scheme redirect URI is registered (--private-use-redirect-uri)")
        }
        let authorization = try await authorize(redirectURI: uri)
        if authorization.codeCame(to: uri) { return .pass("\(uri) got the code") }
        return .broken(
            "\(uri), a registered private-use redirect URI, got no code: \(authorization.end.described)")
    }

    /// `localhost` in place of the loopback IP literal is refused (RFC 8252 §8.3).
    private func localhostRefused() async throws -> Verdict {
        guard let loopback = target.loopbackRedirectURI, let variant = RedirectURIVariants.localhost(loopback)
        else {
            return .skip("no loopback redirect URI is registered (--loopback-redirect-uri)")
        }
        let authorization = try await authorize(redirectURI: variant)
        if let url = authorization.end.callbackURL, RedirectURIVariants.landed(url, on: variant) {
            return .broken(
                "\(variant) was accepted in place of \(loopback): localhost may resolve elsewhere "
                    + "(RFC 8252 §8.3 recommends the IP literal); \(authorization.end.described)")
        }
        return .pass("\(variant) was refused: \(authorization.end.described)")
    }

    /// An unsupported response type comes back to the app as an error with its `state`, not as
    /// a page (RFC 6749 §4.1.2.1).
    private func errorsRedirected() async throws -> Verdict {
        let authorization = try await authorize(extra: [OAuthParameter.responseType: "signinsim_audit"])
        if case .pushRefused(let status, let error?) = authorization.end {
            return .pass(
                "an unsupported response_type was refused at the push with \(status) \(error), which the app reads (RFC 9126 §2.3)"
            )
        }
        guard let url = authorization.end.callbackURL, RedirectURIVariants.landed(url, on: target.redirectURI)
        else {
            return .broken(
                "an unsupported response_type was answered with a page, not at the app's redirect URI: "
                    + authorization.end.described)
        }
        guard let error = authorization.end.error else {
            return .broken(
                "an unsupported response_type came back without an error: \(authorization.end.described)")
        }
        return authorization.end.parameters?[OAuthParameter.state] == authorization.state
            ? .pass("an unsupported response_type \(authorization.end.described), with its state")
            : .broken("error=\(error) came back without the request's state")
    }

    /// Sends the authorization request with `variant` for the redirect URI: the rule holds when
    /// the browser never gets there.
    private func nearMiss(_ variant: String, of registered: String, what: String) async throws -> Verdict {
        let authorization = try await authorize(redirectURI: variant)
        if let url = authorization.end.callbackURL, RedirectURIVariants.landed(url, on: variant) {
            let carried =
                authorization.end.code != nil
                ? "a code" : authorization.end.error.map { "error=\($0)" } ?? "nothing"
            return .broken("\(variant) (the registered URI with \(what)) was redirected to, with \(carried)")
        }
        return .pass("\(variant) (with \(what)) was not redirected to: \(authorization.end.described)")
    }

    /// A public client's request without `code_challenge` (RFC 9700 §2.1.1).
    private func pkceRequired() async throws -> Verdict {
        let authorization = try await authorize(pkce: .none)
        guard authorization.end.code != nil else {
            return .pass("the request without code_challenge was refused: \(authorization.end.described)")
        }
        let answer = try await redeem(authorization, verifier: .some(nil))
        if target.client.isConfidential {
            return answer.succeeded
                ? .skip("a confidential client may go without PKCE; its code was redeemed without a verifier")
                : .pass("a code came without PKCE, but its redemption was refused (\(answer.described))")
        }
        return answer.succeeded
            ? .broken(
                "a public client's request without code_challenge got a code, redeemed without a verifier")
            : .pass("a code came without PKCE, but its redemption was refused (\(answer.described))")
    }

    /// `code_challenge_method=plain` (RFC 9700 §2.1.1).
    private func plainRefused() async throws -> Verdict {
        let authorization = try await authorize(pkce: .plain)
        guard authorization.end.code != nil else {
            return .pass("code_challenge_method=plain was refused: \(authorization.end.described)")
        }
        let answer = try await redeem(authorization)
        return answer.succeeded
            ? .broken(
                "code_challenge_method=plain was accepted and its code redeemed with the plain verifier")
            : .pass("a code came for plain, but its redemption was refused (\(answer.described))")
    }
}
