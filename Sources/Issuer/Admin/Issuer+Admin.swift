import Clocks
import HTTPCore
public import JOSE
public import JSON
public import OAuthCore
public import WorldVocabulary

/// The test control API under `/_admin/` (JSON in, JSON out), documented in docs/issuer.md.
extension Issuer {
    /// `POST /_admin/reset`: back to the tenant as configured; keys and clock are kept.
    func adminReset(_ request: HTTPRequest) -> HTTPResponse {
        state.withLock { state in
            let keys = state.keys
            state = IssuerState(tenant: tenant, keys: keys, limits: limits)
        }
        recentRequests.withLock { $0 = RequestLog(capacity: $0.capacity, byteBudget: $0.byteBudget) }
        return .json(["reset": true])
    }

    /// `GET /_admin/users`: every user, without passwords.
    func adminListUsers(_ request: HTTPRequest) -> HTTPResponse {
        let users = state.withLock { Array($0.users.values) }.sorted { $0.id < $1.id }
        return .json(["users": .array(users.map(Issuer.userJSON))])
    }

    /// A user as `GET /_admin/users` lists it: its fields by their claim names, no password.
    public static func userJSON(_ user: UserAccount) -> JSONValue {
        var object: [String: JSONValue] = [
            "user_id": .string(user.id), "email_verified": .bool(user.emailVerified),
            "connection": .string(user.connection),
        ]
        if let email = user.email { object["email"] = .string(email) }
        if let name = user.name { object["name"] = .string(name) }
        if let given = user.givenName { object["given_name"] = .string(given) }
        if let family = user.familyName { object["family_name"] = .string(family) }
        if let external = user.externalID { object["external_id"] = .string(external) }
        return .object(object)
    }

    /// `POST /_admin/users`: creates a user, or updates the one with that email or `user_id`.
    func adminCreateUser(_ request: HTTPRequest) -> HTTPResponse {
        do throws(OAuthError) {
            let user = storeUser(try UserUpdate(json: try Issuer.adminBody(request)))
            return .json(Issuer.userJSON(user), status: 201)
        } catch {
            return error.response
        }
    }

    /// Creates a user, or updates the one with the update's `userID` or email (in process, and
    /// what `POST /_admin/users` does).
    @discardableResult
    public func storeUser(_ update: UserUpdate) -> UserAccount {
        state.withLock { state -> UserAccount in
            var user =
                update.userID.flatMap { state.users[$0] } ?? state.user(email: update.email)
                ?? UserAccount(
                    id: update.userID ?? "auth0|" + randomValue(byteCount: 12), email: update.email)
            user.email = update.email
            if let password = update.password { user.password = password }
            if let name = update.name { user.name = name }
            if let given = update.givenName { user.givenName = given }
            if let family = update.familyName { user.familyName = family }
            if let verified = update.emailVerified { user.emailVerified = verified }
            state.store(user)
            return user
        }
    }

    /// The user with this email, compared without case (in process).
    public func user(email: String) -> UserAccount? {
        state.withLock { $0.user(email: email) }
    }

    /// `GET /_admin/clients`: every client, without secrets.
    func adminListClients(_ request: HTTPRequest) -> HTTPResponse {
        let clients = state.withLock { Array($0.clients.values) }.sorted { $0.id < $1.id }
        return .json(["clients": .array(clients.map(Issuer.clientJSON))])
    }

    static func clientJSON(_ client: ClientRegistration) -> JSONValue {
        [
            "client_id": .string(client.id), "name": .string(client.name), "public": .bool(client.isPublic),
            "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)),
            "post_logout_redirect_uris": .array(client.postLogoutRedirectURIs.map(JSONValue.string)),
            "grant_types": .array(client.grantTypes.sorted().map(JSONValue.string)),
            "require_dpop": .bool(client.requireDPoP),
            "token_endpoint_auth_methods": .array(
                client.acceptedAuthenticationMethods.map { .string($0.rawValue) }),
        ]
    }

    /// `POST /_admin/clients`: registers or replaces a client.
    func adminCreateClient(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let body = try Issuer.adminBody(request)
            let client = try ClientRegistration(adminJSON: body, deviations: tenant.deviations)
            state.withLock { $0.clients[client.id] = client }
            return .json(["client_id": .string(client.id), "public": .bool(client.isPublic)], status: 201)
        } catch {
            return error.response
        }
    }

    /// `POST /_admin/keys/rotate`: a new signing key; the old one stays in the JWKS.
    func adminRotateKeys(_ request: HTTPRequest) -> HTTPResponse {
        do {
            var algorithm: JWSAlgorithm?
            if !request.body.isEmpty, let name = try Issuer.adminBody(request)["alg"]?.stringValue {
                guard let parsed = JWSAlgorithm(rawValue: name) else {
                    throw OAuthError.invalidRequest("alg must be ES256, RS256 or PS256")
                }
                algorithm = parsed
            }
            let keyID = try rotateSigningKey(algorithm: algorithm)
            return .json(["kid": .string(keyID)])
        } catch let error as OAuthError {
            return error.response
        } catch {
            return OAuthError.invalidRequest("\(error)").response
        }
    }

    /// Rotates the signing key now and returns the new `kid`.
    @discardableResult
    public func rotateSigningKey(algorithm: JWSAlgorithm? = nil) throws(OAuthError) -> String {
        var ring = state.withLock { $0.keys }
        do {
            try ring.rotate(algorithm: algorithm)
        } catch {
            throw OAuthError(
                OAuthErrorCode.serverError, "cannot generate a key: \(error.message)", status: 500)
        }
        let rotated = ring
        state.withLock { $0.keys = rotated }
        return rotated.active.keyID ?? ""
    }

    /// `POST /_admin/clock` with `{"advance": s}` or `{"offset": s}`: answers `{"now": epoch}`.
    /// A move that would take the clock out of `WallClockRange.times` (years 0001 to 9999) is
    /// refused with 400 `invalid_request` and leaves the clock where it was.
    func adminClock(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let body = try Issuer.adminBody(request)
            guard let clock = clock as? any AdjustableWallClock else {
                throw OAuthError.invalidRequest("this issuer's clock cannot be moved")
            }
            if let advance = body["advance"] {
                guard let seconds = advance.int64Value else {
                    throw OAuthError.invalidRequest("advance must be an integer")
                }
                do throws(ClockError) {
                    try clock.checkedAdvance(by: seconds)
                } catch {
                    throw OAuthError.invalidRequest("advance: \(error.message)")
                }
            } else if let offset = body["offset"] {
                guard let seconds = offset.int64Value else {
                    throw OAuthError.invalidRequest("offset must be an integer")
                }
                do throws(ClockError) {
                    try clock.checkedSetOffset(seconds)
                } catch {
                    throw OAuthError.invalidRequest("offset: \(error.message)")
                }
            } else if !body.isEmpty {
                throw OAuthError.invalidRequest("expected {\"advance\": seconds} or {\"offset\": seconds}")
            }
            return .json(["now": .int(clock.now())])
        } catch let error as OAuthError {
            return error.response
        } catch {
            return OAuthError.invalidRequest("\(error)").response
        }
    }

    /// `GET /_admin/requests[?since=N]`: the request log, oldest first.
    ///
    /// A `since` that is not a whole number is refused (400 `invalid_request`) rather than read
    /// as 0: a client that meant to read the log's end would otherwise get all of it, up to the
    /// log's byte budget, and a poller would read the same entries again on every call.
    func adminRequests(_ request: HTTPRequest) -> HTTPResponse {
        let query: FormParameters
        do {
            query = try request.queryParameters()
        } catch {
            return OAuthError.invalidRequest("the query is malformed: \(error.message)").response
        }
        var since = 0
        if let text = query["since"] {
            guard let value = Int(text) else {
                return OAuthError.invalidRequest("since must be a whole number (a request's sequence)")
                    .response
            }
            since = value
        }
        return .json(["requests": .array(requestLog(since: since).map(\.json))])
    }

    /// Every request logged so far (in process).
    public var requestLog: [LoggedRequest] { requestLog(since: 0) }

    /// The requests logged after the one numbered `sequence`, oldest first (in process).
    public func requestLog(since sequence: Int) -> [LoggedRequest] {
        recentRequests.withLock { $0.entries.filter { $0.sequence > sequence } }.map(\.logged)
    }

    /// `POST /_admin/faults` with `{"fault": ID, "count": N}` (and `path`, `delay_ms`,
    /// `retry_after`, `status`, `error`, `error_description`).
    func adminAddFault(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let body = try Issuer.adminBody(request)
            guard let name = body["fault"]?.stringValue else {
                throw OAuthError.invalidRequest("fault is required")
            }
            guard let fault = IssuerFault(rawValue: name) else {
                let known = IssuerFault.allCases.map(\.rawValue).joined(separator: ", ")
                throw OAuthError.invalidRequest(
                    "unknown fault \"\(name.prefix(64))\"; known faults: \(known)")
            }
            var injection = FaultInjection(fault: fault)
            if let count = body["count"] {
                guard let value = count.int64Value, value >= 1, value <= 1_000_000 else {
                    throw OAuthError.invalidRequest("count must be an integer from 1")
                }
                injection.remaining = Int(value)
            }
            if let path = body["path"]?.stringValue { injection.path = path }
            if let delay = body["delay_ms"]?.int64Value {
                injection.delayMilliseconds = Int(max(0, min(delay, 600_000)))
            }
            if let retry = body["retry_after"]?.int64Value {
                injection.retryAfterSeconds = Int(max(0, retry))
            }
            if let status = body["status"] {
                guard let value = status.int64Value, (100...599).contains(value) else {
                    throw OAuthError.invalidRequest("status must be an HTTP status from 100 to 599")
                }
                injection.status = Int(value)
            }
            injection.error = body["error"]?.stringValue
            injection.errorDescription = body["error_description"]?.stringValue
            try inject(injection)
            return .json(
                ["fault": .string(fault.rawValue), "count": .int(Int64(injection.remaining))], status: 201)
        } catch let error as OAuthError {
            return error.response
        } catch {
            return OAuthError.invalidRequest("\(error)").response
        }
    }

    /// Arms a fault (in process). Key rotation happens at once.
    public func inject(_ injection: FaultInjection) throws(OAuthError) {
        if injection.fault == .keyRotation {
            try rotateSigningKey()
            return
        }
        state.withLock { $0.faults.add(injection) }
    }

    /// `DELETE /_admin/faults`: disarms every fault.
    func adminClearFaults(_ request: HTTPRequest) -> HTTPResponse {
        clearFaults()
        return .json(["faults": []])
    }

    /// Disarms every fault (in process).
    public func clearFaults() {
        state.withLock { state in
            state.faults.removeAll()
            state.jwksPresentation = .normal
        }
    }

    /// `GET /_admin/faults`: what is armed.
    func adminListFaults(_ request: HTTPRequest) -> HTTPResponse {
        let injections = state.withLock { $0.faults.injections }
        return .json([
            "faults": .array(
                injections.map {
                    ["fault": .string($0.fault.rawValue), "remaining": .int(Int64($0.remaining))]
                })
        ])
    }

    /// An admin request's JSON object; an empty body is an empty object.
    static func adminBody(_ request: HTTPRequest) throws(OAuthError) -> [String: JSONValue] {
        if request.body.isEmpty { return [:] }
        do {
            guard let object = try request.jsonBody().objectValue else {
                throw OAuthError.invalidRequest("the body must be a JSON object")
            }
            return object
        } catch let error as OAuthError {
            throw error
        } catch {
            throw OAuthError.invalidRequest("\(error)")
        }
    }
}

extension ClientRegistration {
    /// A client from the admin API's JSON (the names of RFC 7591 client metadata), its redirect
    /// URIs checked with the tenant's `deviations`.
    init(adminJSON body: [String: JSONValue], deviations: Set<IssuerDeviation>) throws(OAuthError) {
        guard let id = body["client_id"]?.stringValue, !id.isEmpty else {
            throw OAuthError.invalidRequest("client_id is required")
        }
        func strings(_ name: String) throws(OAuthError) -> [String]? {
            guard let value = body[name] else { return nil }
            guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw OAuthError.invalidRequest("\(name) must be an array of strings")
            }
            return array.compactMap(\.stringValue)
        }
        let redirectURIs = try strings("redirect_uris") ?? []
        let postLogoutRedirectURIs = try strings("post_logout_redirect_uris") ?? []
        // The same rules as a tenant file's (TenantLoader+Schema), for both lists.
        for uri in redirectURIs + postLogoutRedirectURIs {
            if let problem = RedirectURIPolicy.registrationProblem(uri, deviations: deviations) {
                throw OAuthError.invalidRequest(problem)
            }
        }
        self.init(
            id: id, name: body["client_name"]?.stringValue, secret: body["client_secret"]?.stringValue,
            redirectURIs: redirectURIs,
            postLogoutRedirectURIs: postLogoutRedirectURIs,
            grantTypes: Set(
                try strings("grant_types") ?? [GrantType.authorizationCode, GrantType.refreshToken]),
            requireDPoP: body["dpop_bound_access_tokens"]?.boolValue ?? false)
        if let value = body["jwks"] {
            do {
                keys = try JWKSet(json: value)
            } catch {
                throw OAuthError.invalidRequest("jwks is not a JWK Set: \(error.message)")
            }
            if let problem = JWKSet.privateKeyProblem(in: value) {
                throw OAuthError.invalidRequest("jwks: \(problem); register public keys only")
            }
        }
        if let value = body["token_endpoint_auth_method"] {
            guard let method = value.stringValue.flatMap(TokenEndpointAuthMethod.init(rawValue:)) else {
                throw OAuthError.invalidRequest(
                    "token_endpoint_auth_method must be one of " + TokenEndpointAuthMethod.spelledOut)
            }
            authenticationMethod = method
        }
        if let problem = authenticationProblem { throw OAuthError.invalidRequest(problem) }
    }
}

/// What the token endpoint would make of a refresh token now.
public enum RefreshTokenStanding: String, Hashable, Sendable, CaseIterable {
    /// It would be accepted.
    case active
    /// A newer one of its family replaced it.
    case rotated
    /// Its family was revoked: reuse detected, or revoked by the client.
    case revoked
    /// Never issued, or expired and swept.
    case unknown
}

extension Issuer {
    /// What the token endpoint would make of a refresh token now, for tests and scenarios. A
    /// rotated token the issuer no longer stores is still `rotated` (or `revoked`) while its
    /// family lives (`IssuerState.retireRefreshToken`).
    public func refreshTokenStatus(_ token: String) -> RefreshTokenStanding {
        let now = clock.now()
        return state.withLock { state in
            guard
                let record = state.presentedRefreshToken(TokenHash(of: token), token: token, now: now)?.record
            else { return .unknown }
            switch state.refreshTokenStatus(record) {
            case .active: return .active
            case .rotated: return .rotated
            case .revoked: return .revoked
            }
        }
    }
}
