import JSON
import YAML

/// The scenario header: name, tags, the issuer, the device and its apps; then the steps.
struct HeaderDecoder {
    let reader: ScenarioReader
    let env: [String: String]
    let overrides: [String: String]

    func scenario(_ header: YAMLMapping, root: YAMLNode) throws(ScenarioError) -> Scenario {
        guard let nameNode = header["name"] else { throw reader.error(root, "the scenario has no name") }
        var scenario = Scenario(name: try reader.string(nameNode, "name"), location: reader.location(root))
        scenario.env = env
        if let node = header["description"] { scenario.description = try reader.string(node, "description") }
        if let node = header["tags"] {
            scenario.tags = try reader.strings(node, "tags")
            for tag in scenario.tags where tag.isEmpty || tag.contains(",") {
                throw reader.error(node, "a tag must be non-empty and without commas")
            }
        }
        if let node = header["seed"] {
            guard let value = node.int, value >= 0 else {
                throw reader.error(node, "seed must be a non-negative integer, found \(node.typeDescription)")
            }
            scenario.seed = UInt64(value)
        }
        if let node = header["timeout"] {
            scenario.timeLimitSeconds = Double(try reader.seconds(node, "timeout"))
            guard (scenario.timeLimitSeconds ?? 0) > 0 else {
                throw reader.error(node, "timeout must be positive")
            }
        }
        var externalClient: YAMLMapping?
        if let node = header["issuer"] {
            (scenario.issuer, externalClient) = try issuer(node)
        }
        if let node = header["device"] { scenario.device = try device(node) }
        scenario.apps = try apps(header["apps"], profile: header["profile"], client: externalClient)
        guard let stepsNode = header["steps"] else { throw reader.error(root, "the scenario has no steps") }
        let decoder = StepDecoder(
            reader: reader, appIDs: scenario.apps.map(\.bundleID), env: env, includeStack: [reader.file])
        scenario.steps = try decoder.steps(stepsNode, "steps")
        guard !scenario.steps.isEmpty else { throw reader.error(stepsNode, "steps is empty") }
        return scenario
    }

    static let clientKeys = [
        "client_id", "redirect_uri", "client_secret", "scopes", "audience", "username_field",
        "password_field", "issuer_suffix", "post_logout_redirect_uri", "client_auth_method",
    ]

    /// `issuer: embedded`, `issuer: https://…`, or a mapping with `url` (and `tenant` for the
    /// embedded issuer, client settings for a real one).
    func issuer(_ node: YAMLNode) throws(ScenarioError) -> (IssuerTarget, YAMLMapping?) {
        if case .scalar = node {
            let url = try reader.string(node, "issuer")
            return (try target(url, node: node, tenant: nil, apple: nil), nil)
        }
        let mapping = try reader.mapping(
            node, "issuer", allowed: ["url", "tenant", "apple_url"] + Self.clientKeys)
        let url = try reader.optionalString(mapping, "url", "issuer") ?? "embedded"
        let apple = try reader.optionalString(mapping, "apple_url", "issuer")
        let tenant = mapping["tenant"].map { TenantOverride(node: $0, file: reader.file) }
        let target = try target(url, node: mapping["url"] ?? node, tenant: tenant, apple: apple)
        if case .external = target, let tenantNode = mapping["tenant"] {
            throw reader.error(tenantNode, "tenant applies to the embedded issuer only, not to \(url)")
        }
        return (target, mapping)
    }

    private func target(_ url: String, node: YAMLNode, tenant: TenantOverride?, apple: String?)
        throws(ScenarioError)
        -> IssuerTarget
    {
        if url == "embedded" { return .embedded(tenant: tenant) }
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw reader.error(node, "issuer must be embedded or an http(s) URL, found \"\(url)\"")
        }
        return .external(ExternalIssuer(url: url, appleURL: apple))
    }

    func device(_ node: YAMLNode) throws(ScenarioError) -> DeviceSetup {
        let mapping = try reader.mapping(node, "device", allowed: ["skew", "passcode", "apple_account"])
        var device = DeviceSetup()
        if let node = mapping["skew"] { device.skewSeconds = try reader.seconds(node, "device.skew") }
        if let node = mapping["passcode"] { device.hasPasscode = try reader.bool(node, "device.passcode") }
        if let node = mapping["apple_account"] {
            device.appleAccount = try appleAccount(node, "device.apple_account")
        }
        return device
    }

    func appleAccount(_ node: YAMLNode, _ context: String) throws(ScenarioError) -> AppleAccountSetup {
        let mapping = try reader.mapping(
            node, context, allowed: ["email", "given_name", "family_name", "private_relay"])
        guard let email = mapping["email"] else { throw reader.error(node, "\(context) needs an email") }
        var account = AppleAccountSetup(email: try reader.string(email, "\(context).email"))
        account.givenName = try reader.optionalString(mapping, "given_name", context)
        account.familyName = try reader.optionalString(mapping, "family_name", context)
        if let node = mapping["private_relay"] {
            account.privateRelay = try reader.bool(node, "\(context).private_relay")
        }
        return account
    }

    func apps(_ node: YAMLNode?, profile: YAMLNode?, client: YAMLMapping?) throws(ScenarioError) -> [AppSetup]
    {
        var base = AppSetup()
        if let client { try apply(client, to: &base, context: "issuer") }
        if let profile { base.profile = try reader.string(profile, "profile") }
        guard let node else { return [base] }
        guard case .sequence(let sequence) = node, !sequence.items.isEmpty else {
            throw reader.error(node, "apps must be a non-empty list of apps")
        }
        var apps: [AppSetup] = []
        for item in sequence.items {
            let mapping = try reader.mapping(
                item, "an app",
                allowed: ["id", "profile", "shared_session", "dpop", "leeway"] + Self.clientKeys)
            var app = base
            if let id = mapping["id"] {
                app.bundleID = try reader.string(id, "app id")
                if mapping["client_id"] == nil, client?["client_id"] == nil { app.clientID = app.bundleID }
                if mapping["redirect_uri"] == nil, client?["redirect_uri"] == nil {
                    app.redirectURI = "\(app.bundleID)://auth/callback"
                }
            }
            try apply(mapping, to: &app, context: "app \(app.bundleID)")
            if let node = mapping["profile"] { app.profile = try reader.string(node, "profile") }
            if let node = mapping["shared_session"] {
                app.sharedSession = try reader.bool(node, "shared_session")
            }
            if let node = mapping["dpop"] { app.usesDPoP = try reader.bool(node, "dpop") }
            if let node = mapping["leeway"] {
                let leeway = try reader.seconds(node, "app \(app.bundleID).leeway")
                guard leeway >= 0 else {
                    throw reader.error(
                        node, "app \(app.bundleID).leeway must not be negative, found \(leeway) s")
                }
                app.leeway = leeway
            }
            guard !apps.contains(where: { $0.bundleID == app.bundleID }) else {
                throw reader.error(item, "two apps have the id \(app.bundleID)")
            }
            apps.append(app)
        }
        return apps
    }

    private func apply(_ mapping: YAMLMapping, to app: inout AppSetup, context: String) throws(ScenarioError)
    {
        if let value = try reader.optionalString(mapping, "client_id", context) { app.clientID = value }
        if let value = try reader.optionalString(mapping, "redirect_uri", context) { app.redirectURI = value }
        if let value = try reader.optionalString(mapping, "client_secret", context) {
            app.clientSecret = value
        }
        if let value = try reader.optionalString(mapping, "audience", context) { app.audience = value }
        if let node = mapping["scopes"] { app.scopes = try reader.strings(node, "\(context).scopes") }
        if let value = try reader.optionalString(mapping, "username_field", context) {
            app.usernameField = value
        }
        if let value = try reader.optionalString(mapping, "issuer_suffix", context) {
            app.issuerSuffix = value
        }
        if let value = try reader.optionalString(mapping, "password_field", context) {
            app.passwordField = value
        }
        if let value = try reader.optionalString(mapping, "post_logout_redirect_uri", context) {
            app.postLogoutRedirectURI = value
        }
        if let node = mapping["client_auth_method"] {
            let value = try reader.string(node, "\(context).client_auth_method")
            guard let method = ClientAuthenticationMethod(rawValue: value) else {
                let known = ClientAuthenticationMethod.allCases.map(\.rawValue).joined(separator: ", ")
                throw reader.error(
                    node, "\(context).client_auth_method must be one of \(known), found \(value)")
            }
            app.clientAuthentication = method
        }
    }
}
