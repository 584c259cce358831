import OAuthCore

extension AuditRun {
    /// Pushed authorization requests (RFC 9126), when discovery advertises the endpoint.
    ///
    /// Each check pushes requests of its own, so that no `request_uri` is used by two checks.
    func pushedAuthorizationChecks() async throws {
        let checks: [AuditCheck] = [
            .parPushAnswered, .parRedirectURIValidated, .parRequestURIBoundToClient, .parRequestURIOneTime,
            .parRequiredEnforced,
        ]
        guard metadata?.pushedAuthorizationEndpoint != nil else {
            skipAll(checks, "discovery does not advertise PAR (pushed_authorization_request_endpoint)")
            return
        }
        var signedIn: Authorization?
        try await check(.parPushAnswered) {
            let (verdict, authorization) = try await pushAnswered()
            signedIn = authorization
            return verdict
        }
        try await check(.parRedirectURIValidated) { try await pushedRedirectURIValidated() }
        try await check(.parRequestURIBoundToClient) { try await requestURIBoundToClient() }
        try await check(.parRequestURIOneTime) {
            guard let signedIn, let requestURI = signedIn.requestURI else {
                return .skip("no pushed request signed in (\(AuditCheck.parPushAnswered.rawValue))")
            }
            cite(signedIn.evidence)
            return try await requestURIOneTime(requestURI)
        }
        try await check(.parRequiredEnforced) { try await pushRequired() }
    }

    /// The push is answered `201` with a `request_uri` and a positive `expires_in` (§2.2), and
    /// the sheet opened with them ends at the app with a code that redeems (§4).
    private func pushAnswered() async throws -> (Verdict, Authorization?) {
        let request = authorizationParameters()
        let push = try await push(request.parameters)
        guard push.answer.status == 201 else {
            return (.broken("the push was answered \(push.answer.described), not 201 Created"), nil)
        }
        guard let requestURI = push.requestURI, !requestURI.isEmpty else {
            return (.broken("the push's 201 answer has no request_uri"), nil)
        }
        guard let expiresIn = push.expiresIn, expiresIn > 0 else {
            return (
                .broken("the push's 201 answer has no positive expires_in, which RFC 9126 §2.2 requires"), nil
            )
        }
        let (end, evidence) = try await exchanges {
            try await openPushed(requestURI)
        }
        let authorization = Authorization(
            state: request.state, nonce: request.nonce, pkce: request.pkce, redirectURI: target.redirectURI,
            end: end, evidence: evidence, requestURI: requestURI)
        guard end.code != nil else {
            return (.broken("the sheet opened with the request_uri got no code: \(end.described)"), nil)
        }
        let answer = try await redeem(authorization)
        guard answer.succeeded else {
            return (.broken("the pushed request's code was not redeemed: \(answer.described)"), authorization)
        }
        return (
            .pass("201 with a request_uri good for \(expiresIn) s; its sign-in gave a code that redeemed"),
            authorization
        )
    }

    /// A push whose `redirect_uri` was never registered (on a host RFC 6761 reserves) is
    /// refused with an error, since the push is validated as an authorization request would be
    /// (§2.1, §2.3).
    private func pushedRedirectURIValidated() async throws -> Verdict {
        let unregistered = "https://audit.invalid/callback"
        let push = try await push(authorizationParameters(redirectURI: unregistered).parameters)
        guard (400..<600).contains(push.answer.status) else {
            return .broken(
                "a push with the unregistered redirect URI \(unregistered) was answered \(push.answer.status)"
            )
        }
        // The refusal is the rule; its form (an RFC 6749 JSON error, §2.3) is noted, not judged.
        return push.answer.error != nil
            ? .pass("a push with \(unregistered) was refused: \(push.answer.described)")
            : .pass(
                "a push with \(unregistered) was refused with \(push.answer.status), though without the RFC 6749 JSON error RFC 9126 §2.3 asks for"
            )
    }

    /// A `request_uri` pushed by the app is refused when another client's `client_id` comes
    /// with it (§2.2: bound to the client that pushed it). The other client never signs in.
    private func requestURIBoundToClient() async throws -> Verdict {
        guard let other = target.otherClient else {
            return .skip("no second client was given (--other-client-id)")
        }
        let push = try await push(authorizationParameters().parameters)
        guard push.answer.status == 201, let requestURI = push.requestURI else {
            return .skip("the push was not answered with a request_uri: \(push.answer.described)")
        }
        let end = try await openPushed(requestURI, as: other)
        if end.code != nil {
            return .broken("the app's request_uri, sent with \(other.id)'s client_id, gave a code")
        }
        return .pass("the app's request_uri with \(other.id)'s client_id was refused: \(end.described)")
    }

    /// The `request_uri` of a sign-in that ended with a code is refused when the sheet opens
    /// with it again (§4: SHOULD be one-time use; a reload before the end MAY be allowed).
    private func requestURIOneTime(_ requestURI: String) async throws -> Verdict {
        let end = try await openPushed(requestURI)
        return end.code != nil
            ? .broken("the request_uri of a finished sign-in gave a second code")
            : .pass("the request_uri of a finished sign-in was refused: \(end.described)")
    }

    /// When discovery says `require_pushed_authorization_requests` (§5), a request sent to the
    /// authorization endpoint without pushing is refused.
    private func pushRequired() async throws -> Verdict {
        guard metadata?.requiresPushedAuthorization == true else {
            return .skip("discovery does not require PAR (require_pushed_authorization_requests)")
        }
        let authorization = try await authorize(pushed: false)
        return authorization.end.code != nil
            ? .broken("discovery requires PAR, but a request that was not pushed got a code")
            : .pass("a request that was not pushed was refused: \(authorization.end.described)")
    }

    /// Opens the sheet at the authorization endpoint with `requestURI` and `client`'s id (the
    /// app's by default), waiting for the app's redirect URI.
    private func openPushed(_ requestURI: String, as client: AuditClient? = nil) async throws -> SheetEnd {
        try await probe.sheet(
            sheetURL(requestURI: requestURI, client: client ?? target.client), redirectURI: target.redirectURI
        )
    }
}
