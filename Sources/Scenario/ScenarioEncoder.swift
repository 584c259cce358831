public import JSON

/// Writes scenarios and steps back in the file format `ScenarioLoader` reads, as JSON values
/// (JSON is YAML too, so the loader reads the result as it reads a file).
///
/// Three things are built on it: the steps a HAR written by `run --har-dir` carries in its
/// pages (so that a replay or an import knows what the app and the person did between the
/// requests), the story a replay runs, and the scenario `import-har` prints. What the loader
/// fills in by default is left out, so that a written step reads as a person would write it.
/// `runFlow` includes are written inlined (the loader has already read their files), and `env`
/// is not written (every `${…}` is already substituted).
public enum ScenarioEncoder {
    /// The whole scenario: header and steps.
    public static func document(_ scenario: Scenario) -> JSONValue {
        var document = header(scenario)
        document["steps"] = .array(steps(scenario.steps))
        return .object(document)
    }

    /// The header's members (`name`, `issuer`, `device`, `apps`, …) without `steps`.
    public static func header(_ scenario: Scenario) -> [String: JSONValue] {
        var header: [String: JSONValue] = ["name": .string(scenario.name)]
        if !scenario.description.isEmpty { header["description"] = .string(scenario.description) }
        if !scenario.tags.isEmpty { header["tags"] = .array(scenario.tags.map(JSONValue.string)) }
        if let seed = scenario.seed, let value = Int64(exactly: seed) { header["seed"] = .int(value) }
        if let limit = scenario.timeLimitSeconds { header["timeout"] = .int(Int64(limit.rounded(.up))) }
        switch scenario.issuer {
        case .embedded(let tenant?):
            header["issuer"] = ["tenant": tenant.json]
        case .embedded(nil):
            break
        case .external(let external):
            var issuer: [String: JSONValue] = ["url": .string(external.url)]
            if let apple = external.appleURL { issuer["apple_url"] = .string(apple) }
            header["issuer"] = .object(issuer)
        }
        let device = self.device(scenario.device)
        if !device.isEmpty { header["device"] = .object(device) }
        header["apps"] = .array(scenario.apps.map(app))
        return header
    }

    /// The `device` mapping; empty when everything is the default.
    static func device(_ device: DeviceSetup) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if device.skewSeconds != 0 { members["skew"] = .int(device.skewSeconds) }
        if !device.hasPasscode { members["passcode"] = false }
        if let account = device.appleAccount { members["apple_account"] = appleAccount(account) }
        return members
    }

    static func appleAccount(_ account: AppleAccountSetup) -> JSONValue {
        var members: [String: JSONValue] = ["email": .string(account.email)]
        if let given = account.givenName { members["given_name"] = .string(given) }
        if let family = account.familyName { members["family_name"] = .string(family) }
        if account.privateRelay { members["private_relay"] = true }
        return .object(members)
    }

    /// One entry of `apps`, every setting written out: an app's client is what a replay and an
    /// import need to know, defaults included.
    public static func app(_ app: AppSetup) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(app.bundleID), "client_id": .string(app.clientID),
            "redirect_uri": .string(app.redirectURI), "scopes": .array(app.scopes.map(JSONValue.string)),
            "profile": .string(app.profile.description),
        ]
        if let secret = app.clientSecret { members["client_secret"] = .string(secret) }
        if let audience = app.audience { members["audience"] = .string(audience) }
        if app.sharedSession { members["shared_session"] = true }
        if app.usesDPoP { members["dpop"] = true }
        if let leeway = app.leeway { members["leeway"] = .int(leeway) }
        if app.usernameField != "username" { members["username_field"] = .string(app.usernameField) }
        if app.passwordField != "password" { members["password_field"] = .string(app.passwordField) }
        if !app.issuerSuffix.isEmpty { members["issuer_suffix"] = .string(app.issuerSuffix) }
        if let uri = app.postLogoutRedirectURI { members["post_logout_redirect_uri"] = .string(uri) }
        if let method = app.clientAuthentication { members["client_auth_method"] = .string(method.rawValue) }
        switch app.clientKey {
        case .file(let path, _)?: members["client_key_file"] = .string(path)
        case .jwk(let jwk)?: members["client_jwk"] = jwk
        case nil: break
        }
        if let audience = app.clientAssertionAudience {
            members["client_assertion_audience"] = .string(audience.rawValue)
        }
        let request: [(String, String?)] = [
            ("prompt", app.prompt), ("login_hint", app.loginHint), ("ui_locales", app.uiLocales),
            ("organization", app.organization), ("acr_values", app.acrValues),
        ]
        for case (let key, let value?) in request { members[key] = .string(value) }
        if let maxAge = app.maxAge { members["max_age"] = .int(Int64(maxAge)) }
        if !app.authorizationParameters.isEmpty {
            members["authorization_parameters"] = .object(
                app.authorizationParameters.mapValues(JSONValue.string))
        }
        return .object(members)
    }

    // MARK: Steps

    /// Steps as a list, `runFlow` includes inlined.
    public static func steps(_ steps: [Step]) -> [JSONValue] {
        steps.flatMap { step -> [JSONValue] in
            if case .include(_, let inner) = step.action { return self.steps(inner) }
            return [self.step(step)]
        }
    }

    /// One step: a bare name, or a mapping from the name to its arguments.
    public static func step(_ step: Step) -> JSONValue {
        switch step.action {
        case .app(let action, let app):
            return named(action.rawValue, appOnly(app))
        case .device(let action):
            return .string(action.rawValue)
        case .advance(let seconds):
            return ["advance": .int(seconds)]
        case .skew(let seconds):
            return ["skew": .int(seconds)]
        case .appleRevokeConsent(let app):
            return named("appleRevokeConsent", appOnly(app))
        case .appleCredential(let change, let app):
            var arguments = appOnly(app)
            arguments["state"] = .string(change.state.rawValue)
            if case .transferred(let team?) = change { arguments["team"] = .string(team) }
            return ["appleCredential": .object(arguments)]
        case .network(let change):
            return ["network": .object(network(change))]
        case .sdk(let call, let app, let errors):
            var arguments = sdkArguments(call)
            if let app { arguments["app"] = .string(app) }
            if let errors {
                arguments["error"] =
                    errors.count == 1 ? .string(errors[0].name) : .array(errors.map { .string($0.name) })
            }
            return named(call.step.rawValue, arguments)
        case .appleAccount(let account):
            return ["appleAccount": account.map(appleAccount) ?? .object([:])]
        case .issuer(let action):
            return ["issuer": .object(issuer(action))]
        case .parallel(let branches):
            return [
                "parallel": .array(
                    branches.map { branch in
                        if case .include(_, let inner) = branch.action { return .array(steps(inner)) }
                        return self.step(branch)
                    })
            ]
        case .include(_, let inner):
            // Only reached for an include nested where a single step is expected: a list.
            return .array(steps(inner))
        case .expect(let expectations):
            return ["expect": .object(expect(expectations))]
        case .wait(let condition):
            switch condition {
            case .sheet(let presented, let app):
                var members: [String: JSONValue] = ["sheet": presented ? "presented" : "closed"]
                if let app { members["app"] = .string(app) }
                return ["wait": .object(members)]
            case .requests(let path, let count):
                var requests: [String: JSONValue] = ["count": .int(Int64(count))]
                if let path { requests["path"] = .string(path) }
                return ["wait": ["requests": .object(requests)]]
            }
        }
    }

    private static func named(_ name: String, _ arguments: [String: JSONValue]) -> JSONValue {
        arguments.isEmpty ? .string(name) : .object([name: .object(arguments)])
    }

    private static func appOnly(_ app: String?) -> [String: JSONValue] {
        app.map { ["app": .string($0)] } ?? [:]
    }

    private static func sdkArguments(_ call: SDKCall) -> [String: JSONValue] {
        var arguments: [String: JSONValue] = [:]
        switch call {
        case .signIn(let user, let prompt, let scopes, let loginHint, let maxAge):
            let defaults = WebUserSetup()
            if user.username != defaults.username { arguments["username"] = .string(user.username) }
            if user.password != defaults.password { arguments["password"] = .string(user.password) }
            if !user.fields.isEmpty {
                var fill: [String: JSONValue] = [:]
                for field in user.fields { fill[field.name] = .string(field.value) }
                arguments["fill"] = .object(fill)
            }
            if user.consent != defaults.consent { arguments["consent"] = .string(user.consent.rawValue) }
            if !user.retries.isEmpty {
                arguments["retry"] = .array(
                    user.retries.map { attempt in
                        var members: [String: JSONValue] = [:]
                        if let username = attempt.username { members["username"] = .string(username) }
                        if let password = attempt.password { members["password"] = .string(password) }
                        return .object(members)
                    })
            }
            if let interruption = user.interruption {
                let kind = if case .cancel = interruption { "cancel" } else { "abandon" }
                arguments[kind] = .string(interruption.point.rawValue)
            }
            if let prompt { arguments["prompt"] = .string(prompt) }
            if let scopes { arguments["scopes"] = .array(scopes.map(JSONValue.string)) }
            if let loginHint { arguments["login_hint"] = .string(loginHint) }
            if let maxAge { arguments["max_age"] = .int(Int64(maxAge)) }
        case .handleRedirect(let url):
            arguments["url"] = .string(url)
        case .getAccessToken(let force):
            if force { arguments["force"] = true }
        case .signOut(let callEndSession):
            if !callEndSession { arguments["end_session"] = false }
        case .signInWithApple(let cancel, let scopes, let nonce):
            if cancel { arguments["cancel"] = true }
            if let scopes { arguments["scopes"] = .array(scopes.map(JSONValue.string)) }
            if let nonce { arguments["nonce"] = .string(nonce) }
        case .getCredentialState(let expected):
            if let expected { arguments["state"] = .string(expected.rawValue) }
        case .getSession, .renewSession, .userInfo, .configure:
            break
        }
        return arguments
    }

    static func network(_ change: NetworkChange) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if change.reset { members["reset"] = true }
        if let offline = change.offline { members["offline"] = .bool(offline) }
        if let latency = change.latencyMilliseconds { members["latency_ms"] = .int(Int64(latency)) }
        if let portal = change.captivePortal { members["captive_portal"] = .bool(portal) }
        if let armed = change.failNext { members["fail_next"] = .object(self.armed(armed)) }
        if let armed = change.loseResponses { members["lose_responses"] = .object(self.armed(armed)) }
        if let armed = change.resendRequests { members["resend"] = .object(self.armed(armed)) }
        if let status = change.injectedStatus {
            var inner = armed(change.injectedRequests ?? ArmedRequests())
            inner["code"] = .int(Int64(status))
            members["status"] = .object(inner)
        }
        return members
    }

    private static func armed(_ armed: ArmedRequests) -> [String: JSONValue] {
        var members: [String: JSONValue] = ["count": .int(Int64(armed.count))]
        if let path = armed.path { members["path"] = .string(path) }
        return members
    }

    /// The members of an `issuer:` step, which are also the admin API's request bodies.
    public static func issuer(_ action: IssuerAction) -> [String: JSONValue] {
        switch action {
        case .fault(let injection):
            var members: [String: JSONValue] = [
                "fault": .string(injection.fault.rawValue), "count": .int(Int64(injection.count)),
            ]
            if let path = injection.path { members["path"] = .string(path) }
            if let delay = injection.delayMilliseconds { members["delay_ms"] = .int(Int64(delay)) }
            if let status = injection.status { members["status"] = .int(Int64(status)) }
            if let error = injection.error { members["error"] = .string(error) }
            if let description = injection.errorDescription {
                members["error_description"] = .string(description)
            }
            return members
        case .clearFaults:
            return ["clear_faults": true]
        case .rotateKeys(let algorithm):
            return ["rotate_keys": algorithm.map { .string($0.rawValue) } ?? true]
        case .user(let update):
            return ["user": .object(update.json)]
        case .clock(.advance(let seconds)):
            return ["clock": ["advance": .int(seconds)]]
        case .clock(.offset(let seconds)):
            return ["clock": ["offset": .int(seconds)]]
        }
    }

    // MARK: expect

    static func expect(_ expectations: [Expectation]) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        var requests: [JSONValue] = []
        for expectation in expectations {
            switch expectation.kind {
            case .session(let present, let app):
                members["session"] = present ? "present" : "absent"
                noteApp(app, &members)
            case .claims(let claims, let app):
                members["claims"] = .object(claims.mapValues(match))
                noteApp(app, &members)
            case .refreshToken(let present, let app):
                members["refresh_token"] = present ? "present" : "absent"
                noteApp(app, &members)
            case .tokenType(let type, let app):
                members["token_type"] = .string(type)
                noteApp(app, &members)
            case .scopes(let scopes, let app):
                members["scopes"] = .array(scopes.map(JSONValue.string))
                noteApp(app, &members)
            case .lastError(let code):
                members["error"] = code.map { .string($0.rawValue) } ?? .null
            case .requests(let request):
                requests.append(self.request(request))
            case .keychainItems(let count):
                members["keychain"] = .int(Int64(count))
            case .browserCookies(let count, let name):
                var cookies: [String: JSONValue] = [:]
                if let count { cookies["count"] = .int(Int64(count)) }
                if let name { cookies["name"] = .string(name) }
                members["cookies"] = .object(cookies)
            case .issuerUser(let email, let fields):
                var user = fields.mapValues(match)
                user["email"] = .string(email)
                members["issuer_user"] = .object(user)
            case .appPhase(let phase, let app):
                members["app_phase"] = .string(phase.rawValue)
                noteApp(app, &members)
            case .issuerRefreshTokens(let verdict):
                members["issuer_refresh_tokens"] = .string(verdict.rawValue)
            case .appleCredential(let state, let app):
                members["apple_credential"] = .string(state.rawValue)
                noteApp(app, &members)
            case .signedOutAtIssuer(let ended, let app):
                members["signed_out_at_issuer"] = .bool(ended)
                noteApp(app, &members)
            case .loginForms(let count, let app):
                members["login_forms"] = .int(Int64(count))
                noteApp(app, &members)
            }
        }
        if !requests.isEmpty { members["requests"] = .array(requests) }
        return members
    }

    private static func noteApp(_ app: String?, _ members: inout [String: JSONValue]) {
        if let app { members["app"] = .string(app) }
    }

    private static func request(_ request: RequestExpectation) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let path = request.path { members["path"] = .string(path) }
        if let endpoint = request.endpoint { members["endpoint"] = .string(endpoint.rawValue) }
        if let method = request.method { members["method"] = .string(method) }
        if !request.parameters.isEmpty { members["params"] = .object(request.parameters.mapValues(match)) }
        if !request.headers.isEmpty { members["headers"] = .object(request.headers.mapValues(match)) }
        if let count = request.count { members["count"] = .int(Int64(count)) }
        if let atLeast = request.atLeast { members["at_least"] = .int(Int64(atLeast)) }
        return .object(members)
    }

    private static func match(_ match: ClaimMatch) -> JSONValue {
        switch match {
        case .equals(let value): value
        case .present: "present"
        case .absent: "absent"
        }
    }
}

extension TenantOverride {
    /// The tenant document as JSON.
    public var json: JSONValue {
        (try? ScenarioReader(file: file).json(node)) ?? .object([:])
    }
}
