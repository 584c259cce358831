public import JSON

/// Writes scenarios and steps back in the file format `ScenarioLoader` reads, as JSON values
/// (JSON is YAML too, so the loader reads the result as it reads a file).
///
/// Three things are built on it: the steps a HAR written by `run --har-dir` carries in its
/// pages (so that a replay or an import knows what the app and the person did between the
/// requests), the story a replay runs, and the scenario `import-har` prints. What the loader
/// fills in by default is left out, so that a written step reads as a person would write it.
/// `runFlow` includes are written inlined (the loader has already read their files), and `env`
/// is not written (every `${…}` is already substituted). Each step is written by its
/// declaration in `Steps/` (`StepKind.codec`).
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
        if let browser = scenario.browser { header["browser"] = .string(browser.rawValue) }
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
        .object(AppleAccountSetup.fields.encode(account))
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
        if let browser = app.browser { members["browser"] = .string(browser.rawValue) }
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
            if case .flow(.include(_, let inner)) = step.action { return self.steps(inner) }
            return [self.step(step)]
        }
    }

    /// One step: a bare name, or a mapping from the name to its arguments, as the step's
    /// declaration writes it (`StepKind.codec`, in `Steps/`).
    public static func step(_ step: Step) -> JSONValue {
        step.action.kind.codec.encode(step.action)
    }
}

extension TenantOverride {
    /// The tenant document as JSON.
    public var json: JSONValue {
        (try? ScenarioReader(file: file).json(node)) ?? .object([:])
    }
}
