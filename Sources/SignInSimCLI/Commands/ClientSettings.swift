import JOSE
import OAuthCore
import SignInSDK

/// What a client registration at an issuer holds, as `sign-in` and `apple-sign-in` take it
/// on the command line: scopes, audience, how the client authenticates, and (for the web
/// flow) the authorization request's parameters. An empty value is the same as leaving the
/// option out, so that scripts can pass `"$VAR"` whether or not it is set.
struct ClientSettings {
    /// `--scope <scopes>`.
    static let scopeOption = OptionSpec.option(
        "scope", value: "scopes",
        help: "Space-separated scopes (default: openid profile email offline_access).")
    /// `--audience <api>`.
    static let audienceOption = OptionSpec.option(
        "audience", value: "api", help: "Sent as audience at authorize and token (Auth0's API).")
    /// `--client-secret <secret>`.
    static let clientSecretOption = OptionSpec.option(
        "client-secret", value: "secret", help: "A client secret, for issuers without public clients.")
    /// `--client-auth-method <method>`.
    static let clientAuthMethodOption = OptionSpec.option(
        "client-auth-method", value: "method",
        help: "How the client authenticates at the token endpoint (default: private_key_jwt with "
            + "--client-key, else with a secret client_secret_basic unless discovery lists only "
            + "client_secret_post, else none): " + TokenEndpointAuthMethod.spelledOut + ".")
    /// `--client-key <file>`.
    static let clientKeyOption = OptionSpec.option(
        "client-key", value: "file",
        help: "The client's private key for private_key_jwt: a private JWK or a PEM key.")
    /// `--client-assertion-audience <aud>`.
    static let clientAssertionAudienceOption = OptionSpec.option(
        "client-assertion-audience", value: "aud",
        help: "The aud of a private_key_jwt assertion: issuer (the default) or token_endpoint.")

    /// The options both commands take.
    static let registrationOptions: [OptionSpec] = [
        scopeOption, audienceOption, clientSecretOption, clientAuthMethodOption, clientKeyOption,
        clientAssertionAudienceOption,
    ]

    /// `--prompt <values>`.
    static let promptOption = OptionSpec.option(
        "prompt", value: "values",
        help: "prompt, values separated by spaces, or omit to send none (default: consent when "
            + "the scopes include offline_access, OpenID Connect Core §11).")
    /// `--login-hint <hint>`.
    static let loginHintOption = OptionSpec.option(
        "login-hint", value: "hint", help: "login_hint: the account to preselect.")
    /// `--ui-locales <tags>`.
    static let uiLocalesOption = OptionSpec.option(
        "ui-locales", value: "tags", help: "ui_locales: BCP 47 language tags, space-separated.")
    /// `--organization <id>`.
    static let organizationOption = OptionSpec.option(
        "organization", value: "id", help: "organization (Auth0 Organizations).")
    /// `--max-age <seconds>`.
    static let maxAgeOption = OptionSpec.option(
        "max-age", value: "seconds", help: "max_age: the longest time since the user last signed in.")
    /// `--acr-values <values>`.
    static let acrValuesOption = OptionSpec.option(
        "acr-values", value: "values", help: "acr_values: requested authentication context classes.")
    /// `--auth-param <name=value>`, repeatable.
    static let authParamOption = OptionSpec.option(
        "auth-param", value: "name=value", help: "Another authorization request parameter (repeatable).",
        repeatable: true)

    /// The authorization request's own options (the web flow only).
    static let authorizationOptions: [OptionSpec] = [
        promptOption, loginHintOption, uiLocalesOption, organizationOption, maxAgeOption, acrValuesOption,
        authParamOption,
    ]

    var scopes: [String]?
    var audience: String?
    var clientSecret: String?
    var method: TokenEndpointAuthMethod?
    var keyFile: String?
    var assertionAudience: ClientAssertion.Audience?
    var prompt: SignInOptions.Prompt = .automatic
    var loginHint: String?
    var uiLocales: String?
    var organization: String?
    var maxAge: Int?
    var acrValues: String?
    var parameters: [String: String] = [:]

    /// The settings `arguments` give. The command must declare `registrationOptions`; a
    /// command without `authorizationOptions` (the native flow) keeps their defaults.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        func value(_ option: OptionSpec) -> String? {
            arguments.value(option).flatMap { $0.isEmpty ? nil : $0 }
        }
        scopes = value(Self.scopeOption).map { $0.split(separator: " ").map(String.init) }
        audience = value(Self.audienceOption)
        clientSecret = value(Self.clientSecretOption)
        method = try Self.choice(value(Self.clientAuthMethodOption), option: Self.clientAuthMethodOption)
        keyFile = value(Self.clientKeyOption)
        assertionAudience = try Self.choice(
            value(Self.clientAssertionAudienceOption), option: Self.clientAssertionAudienceOption)
        // `apple-sign-in` sends no authorization request: it declares none of its options.
        guard arguments.declares(Self.promptOption) else { return }
        prompt = SignInOptions.Prompt(text: arguments.value(Self.promptOption) ?? "")
        loginHint = value(Self.loginHintOption)
        uiLocales = value(Self.uiLocalesOption)
        organization = value(Self.organizationOption)
        acrValues = value(Self.acrValuesOption)
        if let text = value(Self.maxAgeOption) {
            guard let seconds = Int(text), seconds >= 0 else {
                throw UsageError(
                    "The value '\(text)' is invalid for '--max-age <seconds>': expected a non-negative integer"
                )
            }
            maxAge = seconds
        }
        for pair in arguments.allValues(Self.authParamOption) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError(
                    "The value '\(pair)' is invalid for '--auth-param <name=value>': expected NAME=VALUE")
            }
            let name = String(pair[..<equals])
            if let problem = SignInOptions.reservedParameterProblem(name) {
                throw UsageError("The value '\(pair)' is invalid for '--auth-param <name=value>': \(problem)")
            }
            parameters[name] = String(pair[pair.index(after: equals)...])
        }
    }

    /// One of a closed set's values, or a usage error listing them.
    private static func choice<Value: RawRepresentable & CaseIterable>(_ text: String?, option: OptionSpec)
        throws(UsageError) -> Value? where Value.RawValue == String
    {
        guard let text else { return nil }
        guard let value = Value(rawValue: text) else {
            let known = Value.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw UsageError(
                "The value '\(text)' is invalid for '\(option.synopsis)'. Please provide one of \(known).")
        }
        return value
    }

    /// The private key `--client-key` names (`private_key_jwt`), read and parsed; `nil` without
    /// one.
    func clientKey(context: CLIContext) throws -> JWK? {
        guard let keyFile else { return nil }
        let bytes = try context.readFile(keyFile)
        do {
            return try JWK.privateKey(text: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw UsageError("The value '\(keyFile)' is invalid for '--client-key <file>': \(error.message)")
        }
    }

    /// The settings applied to `options`, the key file read, and the whole checked as
    /// `configure(options:)` will check it: a contradiction is a usage error, found before
    /// anything starts.
    func apply(to options: inout SignInOptions, context: CLIContext) throws {
        if let scopes { options.scopes = scopes }
        options.audience = audience
        options.clientSecret = clientSecret
        options.clientAuthentication = method
        if let assertionAudience { options.clientAssertionAudience = assertionAudience }
        options.prompt = prompt
        options.loginHint = loginHint
        options.uiLocales = uiLocales
        options.organization = organization
        options.maxAge = maxAge
        options.acrValues = acrValues
        options.authorizationParameters = parameters
        options.clientKey = try clientKey(context: context)
        do {
            try options.checkClientRegistration()
        } catch {
            throw UsageError("The client settings cannot be used: \(error.message)")
        }
    }
}
