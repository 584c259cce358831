import HTTPCore
import JSON
import OAuthCore

// Pushed authorization requests (RFC 9126): `POST /par` takes the authorization request's
// parameters from an authenticated client and hands back a `request_uri`, which `/authorize`
// then takes in their place (`resolvePushedRequest`).
extension Issuer {
    /// `POST /par` (RFC 9126 §2): authenticates the client as the token endpoint does, checks
    /// the parameters as the authorization endpoint would, and stores them under a new
    /// `request_uri` (201, §2.2).
    ///
    /// Every refusal is an RFC 6749 §5.2 JSON error (§2.3), never a redirect: 401
    /// `invalid_client` for client authentication, 400 for the rest, with the code the
    /// authorization endpoint would have sent (`invalid_scope`, …), and `invalid_request` where
    /// it would have shown its error page (a `redirect_uri` not registered). A pushed
    /// `request_uri` is `invalid_request` (§2.1). Served only when the tenant's
    /// `pushed_authorization_requests` is not `off`; otherwise the path is unknown (404).
    ///
    /// Deviations: `par-skips-redirect-uri-check` accepts any `redirect_uri` here (the
    /// authorization endpoint still checks it), `par-omits-expires-in` leaves `expires_in` out
    /// of the answer.
    func pushAuthorizationRequest(_ request: HTTPRequest) -> HTTPResponse {
        guard tenant.pushedAuthorizationRequests.servesPushedRequests else {
            return OAuthError("not_found", "no endpoint at \(Path.pushedAuthorization)", status: 404).response
        }
        let now = clock.now()
        do throws(OAuthError) {
            guard request.mediaType == MediaType.formURLEncoded else {
                throw .invalidRequest(
                    "a pushed authorization request is a form: send application/x-www-form-urlencoded "
                        + "(RFC 9126 section 2.1)")
            }
            let parameters = try OAuthRequestParameters(request: request)
            let client = try authenticateClient(parameters, request: request)
            if parameters[PushedAuthorization.requestURIParameter] != nil {
                throw .invalidRequest("request_uri must not be pushed (RFC 9126 section 2.1)")
            }
            let pushed = Issuer.pushedParameters(parameters, clientID: client.id)
            try checkPushedRequest(pushed, client: client)
            let lifetime = lifetimes(for: client).pushedRequest
            let requestURI = PushedAuthorization.requestURIPrefix + randomValue()
            let record = PushedAuthorizationRecord(
                clientID: client.id, parameters: pushed, expiresAt: now + lifetime)
            state.withLock { state in
                sweepIfDue(&state, now: now)
                state.pushedRequests[Issuer.hash(requestURI)] = record
            }
            var body: [String: JSONValue] = ["request_uri": .string(requestURI)]
            // RFC 9126 §2.2: REQUIRED, unless the tenant deviates.
            if !tenant.deviates(.parOmitsExpiresIn) { body["expires_in"] = .int(lifetime) }
            return .json(
                .object(body), status: 201, headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
        } catch {
            return error.response
        }
    }

    /// What is kept of a push: the parameters the authorization endpoint reads (client
    /// credentials and unknown parameters left out, RFC 6749 §3.1), in name order, with
    /// `client_id` the authenticated client's (RFC 9126 §2.1: a `client_id` in the body must be
    /// that client's, which client authentication has checked).
    static func pushedParameters(_ parameters: OAuthRequestParameters, clientID: String) -> FormParameters {
        var kept = parameters.dictionary.filter { AuthorizationRequest.recognizedParameters.contains($0.key) }
        kept[OAuthParameter.clientID] = clientID
        return FormParameters(kept.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Checks a push as an authorization request of `client` (RFC 9126 §2.1), turning each
    /// rejection into the JSON error the push answers with (§2.3).
    private func checkPushedRequest(_ pushed: FormParameters, client: ClientRegistration) throws(OAuthError) {
        var checked = pushed
        // `par-skips-redirect-uri-check`: the push is judged as if it named a registered URI;
        // what is stored keeps the one it named.
        if tenant.deviates(.parSkipsRedirectURICheck), pushed[OAuthParameter.redirectURI] != nil,
            let registered = client.redirectURIs.first
        {
            checked[OAuthParameter.redirectURI] = registered
        }
        do {
            _ = try AuthorizationRequest.validate(checked, tenant: tenant) { $0 == client.id ? client : nil }
        } catch {
            switch error {
            case .untrustedRedirect(let message): throw .invalidRequest(message)
            case .redirect(let error, _, _): throw error
            }
        }
    }

    /// The authorization request an `/authorize` query stands for when it carries a
    /// `request_uri` (RFC 9126 §4): the pushed parameters, or a refusal for the error page.
    /// `nil` for a query without one, or when the tenant serves no pushed requests (the
    /// validation then answers `request_uri_not_supported`).
    ///
    /// Deviations: `par-ignores-client-id` takes the request_uri whatever `client_id` comes
    /// with it; `par-request-uri-reusable` leaves it usable until it expires.
    func resolvePushedRequest(_ query: FormParameters, now: Int64) -> PushedRequestDecision? {
        guard tenant.pushedAuthorizationRequests.servesPushedRequests else { return nil }
        func values(_ name: String) -> [String] {
            query.pairs.filter { $0.name == name && !$0.value.isEmpty }.map(\.value)
        }
        let requestURIs = values(PushedAuthorization.requestURIParameter)
        guard let requestURI = requestURIs.first else { return nil }
        let clientIDs = values(OAuthParameter.clientID)
        guard requestURIs.count == 1, clientIDs.count < 2 else {
            return .refused(
                .invalidRequest("request_uri and client_id may each be given once (RFC 6749 section 3.1)"))
        }
        let deviations = tenant.deviations
        return state.withLock { state in
            sweepIfDue(&state, now: now)
            return state.usePushedRequest(
                Issuer.hash(requestURI), clientID: clientIDs.first, now: now, deviations: deviations)
        }
    }
}
