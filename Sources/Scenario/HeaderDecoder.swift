import Errors
import Foundation
import HTTPCore
import JSON
import SignInSDK
import WorldVocabulary
import YAML

/// The scenario header: name, tags, the issuer, the device and its apps; then the steps.
struct HeaderDecoder {
    let reader: ScenarioReader
    let env: [String: String]
    let overrides: [String: String]
    /// Reads a `tenant:` as the embedded issuer will; nil leaves it to the run.
    var tenantCheck: TenantCheck? = nil

    /// The scenario; a section with a problem is recorded and left at its default, so that the
    /// problems of the others are found too.
    func scenario(_ header: YAMLMapping, root: YAMLNode) throws(ScenarioError) -> Scenario {
        let problems = reader.problems
        var scenario = Scenario(name: "", location: reader.location(root))
        if let nameNode = header["name"] {
            scenario.name =
                problems.attempt { () throws(ScenarioError) in try reader.string(nameNode, "name") } ?? ""
        } else {
            problems.record(reader.error(root, "the scenario has no name"))
        }
        scenario.env = env
        if let node = header["description"] {
            scenario.description =
                problems.attempt { () throws(ScenarioError) in try reader.string(node, "description") } ?? ""
        }
        if let node = header["tags"] {
            problems.attempt { () throws(ScenarioError) in
                scenario.tags = try reader.strings(node, "tags")
                for tag in scenario.tags where tag.isEmpty || tag.contains(",") {
                    throw reader.error(node, "a tag must be non-empty and without commas")
                }
            }
        }
        if let node = header["browser"] {
            problems.attempt { () throws(ScenarioError) in
                scenario.browser = try reader.named(node, "browser", BrowserEngine.self)
            }
        }
        if let node = header["seed"] {
            if let value = node.int, value >= 0 {
                scenario.seed = UInt64(value)
            } else {
                problems.record(
                    reader.error(node, "seed must be a non-negative integer, found \(node.typeDescription)"))
            }
        }
        if let node = header["timeout"] {
            problems.attempt { () throws(ScenarioError) in
                let limit = try reader.seconds(node, "timeout")
                guard limit > 0 else { throw reader.error(node, "timeout must be positive") }
                guard limit <= Scenario.longestTimeLimitSeconds else {
                    throw reader.error(
                        node,
                        "timeout must be at most \(Scenario.longestTimeLimitSeconds) s (366 days), found \(limit)"
                    )
                }
                scenario.timeLimitSeconds = Double(limit)
            }
        }
        var externalClient: YAMLMapping?
        if let node = header["issuer"] {
            problems.attempt { () throws(ScenarioError) in
                (scenario.issuer, externalClient) = try issuer(node)
            }
        }
        if let node = header["device"] {
            problems.attempt { () throws(ScenarioError) in scenario.device = try device(node) }
        }
        // Without the apps, app names in steps cannot be checked: nil leaves them unchecked.
        var appIDs: [String]?
        problems.attempt { () throws(ScenarioError) in
            scenario.apps = try apps(header["apps"], profile: header["profile"], client: externalClient)
            appIDs = scenario.apps.map(\.bundleID)
        }
        guard let stepsNode = header["steps"] else { throw reader.error(root, "the scenario has no steps") }
        let decoder = StepDecoder(reader: reader, appIDs: appIDs, env: env, includeStack: [reader.file])
        scenario.steps = try decoder.steps(stepsNode, "steps")
        // No steps for want of valid ones is already a problem recorded.
        if scenario.steps.isEmpty, problems.problems.isEmpty {
            throw reader.error(stepsNode, "steps is empty")
        }
        return scenario
    }

    /// An SDK behaviour profile: names of `BehaviorProfile.names` joined with `+`.
    func profile(_ node: YAMLNode) throws(ScenarioError) -> BehaviorProfile {
        let name = try reader.string(node, "profile")
        do {
            return try BehaviorProfile(named: name)
        } catch {
            let known = BehaviorProfile.names
            guard let unknown = BehaviorProfile.parts(of: name).first(where: { !known.contains($0) }) else {
                throw reader.error(node, error.message)
            }
            throw reader.error(
                node,
                "unknown SDK profile \"\(unknown)\""
                    + NearMiss.alternatives(
                        for: unknown, among: BehaviorProfile.names, listing: "known (several join with +)"))
        }
    }

    static let clientKeys = [
        "client_id", "redirect_uri", "client_secret", "scopes", "audience", "username_field",
        "password_field", "issuer_suffix", "post_logout_redirect_uri", "client_auth_method",
        "client_key_file", "client_jwk", "client_assertion_audience", "prompt", "login_hint", "ui_locales",
        "organization", "max_age", "acr_values", "authorization_parameters",
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
        if let tenant, let tenantCheck {
            // Read as the run will read it, so that `validate` finds its problems too (a
            // misspelt `pages`, an unknown key), with their places in the scenario.
            do throws(TenantError) {
                try tenantCheck(tenant.node, tenant.file)
            } catch {
                throw ScenarioError(
                    .invalid, "tenant: \(error.message)",
                    at: SourceLocation(
                        file: tenant.file, line: error.line ?? tenant.node.mark.line,
                        column: error.column ?? tenant.node.mark.column))
            }
        }
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
        // No step is read here, so no app is checked: the decoder knows none.
        let decoder = StepDecoder(reader: reader, appIDs: nil, env: env, includeStack: [])
        return try AppleAccountSetup.fields.decode(
            node, from: AppleAccountSetup(email: ""), FieldReading(decoder: decoder, path: context))
    }

    func apps(_ node: YAMLNode?, profile: YAMLNode?, client: YAMLMapping?) throws(ScenarioError) -> [AppSetup]
    {
        var base = AppSetup()
        if let client { try apply(client, to: &base, context: "issuer") }
        if let profile { base.profile = try self.profile(profile) }
        guard let node else {
            try checkClientAuthentication(base, settings: client.map { [$0] } ?? [], context: "issuer")
            return [base]
        }
        guard case .sequence(let sequence) = node, !sequence.items.isEmpty else {
            throw reader.error(node, "apps must be a non-empty list of apps")
        }
        var apps: [AppSetup] = []
        for item in sequence.items {
            let mapping = try reader.mapping(
                item, "an app",
                allowed: ["id", "profile", "shared_session", "dpop", "leeway", "browser"] + Self.clientKeys)
            var app = base
            if let id = mapping["id"] {
                app.bundleID = try reader.string(id, "app id")
                if mapping["client_id"] == nil, client?["client_id"] == nil { app.clientID = app.bundleID }
                if mapping["redirect_uri"] == nil, client?["redirect_uri"] == nil {
                    app.redirectURI = "\(app.bundleID)://auth/callback"
                }
            }
            try apply(mapping, to: &app, context: "app \(app.bundleID)")
            try checkClientAuthentication(
                app, settings: (client.map { [$0] } ?? []) + [mapping], context: "app \(app.bundleID)")
            if let node = mapping["profile"] { app.profile = try self.profile(node) }
            if let node = mapping["shared_session"] {
                app.sharedSession = try reader.bool(node, "shared_session")
            }
            if let node = mapping["dpop"] { app.usesDPoP = try reader.bool(node, "dpop") }
            if let node = mapping["browser"] {
                app.browser = try reader.named(node, "app \(app.bundleID).browser", BrowserEngine.self)
            }
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
        if let value = try reader.optionalString(mapping, "username_field", context) {
            app.usernameField = value
        }
        if let value = try reader.optionalString(mapping, "issuer_suffix", context) {
            app.issuerSuffix = value
        }
        if let value = try reader.optionalString(mapping, "password_field", context) {
            app.passwordField = value
        }
        // The client registration's settings: an empty value is the same as leaving the key
        // out, so that a `${VAR:-}` a run does not set leaves the setting alone.
        if let value = try setting(mapping, "post_logout_redirect_uri", context) {
            app.postLogoutRedirectURI = value
        }
        if let value = try setting(mapping, "client_secret", context) { app.clientSecret = value }
        if let value = try setting(mapping, "audience", context) { app.audience = value }
        if let node = mapping["scopes"] {
            let scopes = try reader.strings(node, "\(context).scopes")
            if !scopes.isEmpty { app.scopes = scopes }
        }
        if let node = mapping["prompt"], try setting(mapping, "prompt", context) != nil {
            app.prompt = try reader.prompt(node, "\(context).prompt")
        }
        if let value = try setting(mapping, "login_hint", context) { app.loginHint = value }
        if let value = try setting(mapping, "ui_locales", context) { app.uiLocales = value }
        if let value = try setting(mapping, "organization", context) { app.organization = value }
        if let value = try setting(mapping, "acr_values", context) { app.acrValues = value }
        if let node = mapping["max_age"], try setting(mapping, "max_age", context) != nil {
            app.maxAge = try reader.int(node, "\(context).max_age", range: 0...Int(Int32.max))
        }
        if let node = mapping["authorization_parameters"] {
            try authorizationParameters(node, into: &app, context: "\(context).authorization_parameters")
        }
        if let node = mapping["client_auth_method"],
            try setting(mapping, "client_auth_method", context) != nil
        {
            app.clientAuthentication = try reader.named(
                node, "\(context).client_auth_method", ClientAuthenticationMethod.self)
        }
        if let node = mapping["client_assertion_audience"],
            try setting(mapping, "client_assertion_audience", context) != nil
        {
            app.clientAssertionAudience = try reader.named(
                node, "\(context).client_assertion_audience", ClientAssertionAudience.self)
        }
        try clientKey(mapping, into: &app, context: context)
    }

    /// A client setting's text; nil when the key is absent, null or empty.
    private func setting(_ mapping: YAMLMapping, _ key: String, _ context: String) throws(ScenarioError)
        -> String?
    {
        guard let value = try reader.optionalString(mapping, key, context), !value.isEmpty else { return nil }
        return value
    }

    /// `authorization_parameters`: a mapping of names to values, or the same as one
    /// form-encoded string (`ui=dark&foo=bar`, what an `-e` variable can carry). A name the SDK
    /// sets itself, or one with its own setting, is refused here.
    private func authorizationParameters(_ node: YAMLNode, into app: inout AppSetup, context: String)
        throws(ScenarioError)
    {
        var pairs: [(name: String, value: String, node: YAMLNode)] = []
        if case .mapping(let mapping) = node {
            for pair in mapping.pairs {
                let name = try reader.string(pair.key, "a name in \(context)")
                pairs.append((name, try reader.string(pair.value, "\(context).\(name)"), pair.key))
            }
        } else if !node.isNull {
            let text = try reader.string(node, context)
            for field in text.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = parts.first.flatMap({ Self.formDecoded($0) }),
                    let value = (parts.count > 1 ? parts[1] : "").removingFormEncoding
                else {
                    throw reader.error(node, "\(context) is not form-encoded (name=value&name=value)")
                }
                pairs.append((name, value, node))
            }
        }
        for (name, value, at) in pairs {
            if name.isEmpty { throw reader.error(at, "\(context) has a parameter without a name") }
            if let reserved = ReservedAuthorizationParameters.names[name] {
                throw reader.error(
                    at,
                    reserved.map { "\(context) cannot set \(name); use the \($0) setting" }
                        ?? "\(context) cannot set \(name): the SDK sets it for every sign-in")
            }
            app.authorizationParameters[name] = value
        }
    }

    private static func formDecoded(_ text: Substring) -> String? { text.removingFormEncoding }

    /// `client_key_file` (a private JWK or PEM key, relative to the scenario file) or
    /// `client_jwk` (a private JWK written inline).
    private func clientKey(_ mapping: YAMLMapping, into app: inout AppSetup, context: String)
        throws(ScenarioError)
    {
        let fileNode = mapping["client_key_file"]
        let jwkNode = mapping["client_jwk"]
        if let fileNode, let jwkNode, try setting(mapping, "client_key_file", context) != nil, !jwkNode.isNull
        {
            throw reader.error(fileNode, "\(context): give client_key_file or client_jwk, not both")
        }
        if let fileNode, let relative = try setting(mapping, "client_key_file", context) {
            let path = StepDecoder.resolve(relative, from: reader.file)
            let bytes = try ScenarioLoader.read(path, from: reader.location(fileNode))
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw reader.error(fileNode, "\(context).client_key_file \(path) is not UTF-8 text")
            }
            app.clientKey = .file(path: path, text: text)
        }
        if let jwkNode, !jwkNode.isNull {
            let jwk = try reader.json(jwkNode)
            guard case .object(let members) = jwk, members["kty"] != nil, members["d"] != nil else {
                throw reader.error(
                    jwkNode, "\(context).client_jwk must be a private JWK (a mapping with kty and d)")
            }
            app.clientKey = .jwk(jwk)
        }
    }

    /// The authentication method of an app, with the issuer's settings and its own applied,
    /// has the credential it needs and none it would ignore. Reported at the method (or the
    /// credential) in the app's settings, else in the issuer's.
    private func checkClientAuthentication(_ app: AppSetup, settings: [YAMLMapping], context: String)
        throws(ScenarioError)
    {
        let keys = ["client_auth_method", "client_secret", "client_key_file", "client_jwk"]
        let node = settings.reversed().lazy.compactMap { mapping in keys.lazy.compactMap { mapping[$0] }.first
        }
        .first
        guard let node else { return }
        let hasSecret = app.clientSecret != nil
        let hasKey = app.clientKey != nil
        let problem: String? =
            switch app.clientAuthentication {
            case .basic?, .post?:
                !hasSecret ? "needs client_secret" : hasKey ? "does not use a client key" : nil
            case .privateKeyJWT?:
                !hasKey
                    ? "needs client_key_file or client_jwk" : hasSecret ? "does not use client_secret" : nil
            case .publicClient?: hasSecret || hasKey ? "sends no client_secret or key" : nil
            case nil: hasSecret && hasKey ? "has both a secret and a key: set client_auth_method" : nil
            }
        guard let problem else { return }
        let method = app.clientAuthentication.map { "client_auth_method \($0.rawValue) " } ?? ""
        throw reader.error(node, "\(context): \(method)\(problem)")
    }
}

extension StringProtocol {
    /// Form-decoded (`+` is a space, RFC 3986 percent-escapes), or nil when an escape is broken.
    fileprivate var removingFormEncoding: String? {
        String(self).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
