import AppleID
import Clocks
import HTTPCore
import JSON
import ScenarioRunner
import SignInSDK
import Simulator
import WebAuthSession
import WebKitSession
import WorldVocabulary

extension SignInSimCLI {
    static let signInCommand = CommandSpec(
        name: "sign-in",
        abstract: "Sign in through the web flow as a native app would, and print the session.",
        discussion: """
            Runs the app's SDK on a simulated phone: discovery, the authorize request with PKCE
            S256, state and nonce in a web authentication session whose scripted user fills the
            login form and approves consent, the callback checks, the code exchange, the ID token
            checks and the keychain write; then optionally a refresh and a sign-out. Prints the
            session as JSON (subject, ID token claims, expiry, scope, whether a refresh token is
            held) and exits 0, or exits 1 with the step and the reason. Without --issuer it
            starts the embedded issuer in process and signs in as alice@example.com.
            """,
        options: [
            OneShotOptions.issuer, SignInCommandOptions.clientID, SignInCommandOptions.redirectURI,
        ] + PersonOptions.signIn.all + [SignInSimCLI.browserOption]
            + ClientSettings.registrationOptions + ClientSettings.authorizationOptions + [
                SignInCommandOptions.profile, OneShotOptions.leeway, SignInCommandOptions.sharedSession,
                SignInCommandOptions.denyConsent, SignInSimCLI.oneShotSeedOption,
                SignInCommandOptions.refresh,
                SignInCommandOptions.signOut, SignInCommandOptions.postLogoutRedirectURI,
            ],
        run: { arguments, context in
            try await SignInRun(arguments).run(context: context)
        })

    static let appleSignInCommand = CommandSpec(
        name: "apple-sign-in",
        abstract: "Sign in with Apple natively, exchange at the issuer, print the session.",
        discussion: """
            Performs native Sign in with Apple on a simulated phone (the simulated Apple's
            authorization for the given Apple ID), then Auth0's token exchange at the issuer's
            /oauth/token with user_profile built from the name, and prints the session as JSON.
            Without --issuer it starts the embedded issuer and its Apple in process.
            """,
        options: [
            OneShotOptions.issuer, AppleSignInCommandOptions.apple, AppleSignInCommandOptions.clientID,
            AppleSignInCommandOptions.email, AppleSignInCommandOptions.givenName,
            AppleSignInCommandOptions.familyName,
        ]
            + ClientSettings.registrationOptions + [
                AppleSignInCommandOptions.profile, OneShotOptions.leeway, SignInSimCLI.oneShotSeedOption,
            ],
        run: { arguments, context in
            try await AppleSignInRun(arguments).run(context: context)
        })
}

/// Options of `sign-in`, `apple-sign-in` and `audit` worded alike in all three.
enum OneShotOptions {
    /// `--issuer <url>`.
    static let issuer = OptionSpec.option(
        "issuer", value: "url", help: "The issuer (default: an embedded issuer started in process).")
    /// `--leeway <seconds>` of `sign-in` and `apple-sign-in`.
    static let leeway = OptionSpec.option(
        "leeway", value: "seconds",
        help: "Clock skew allowed on the ID token's exp (default: the profile's; 60, 0 with "
            + "appauth-clock or strict-clock).")
}

/// The options that script the person in the web sheet: `sign-in` and `audit` take the same
/// ones, worded for each.
struct PersonOptions: Sendable {
    /// `--username <name>`.
    var username: OptionSpec
    /// `--password <secret>`.
    var password: OptionSpec
    /// `--username-field <name>`.
    var usernameField = OptionSpec.option(
        "username-field", value: "name", help: "The login form's username field (default: username).")
    /// `--password-field <name>`.
    var passwordField = OptionSpec.option(
        "password-field", value: "name", help: "The login form's password field (default: password).")
    /// `--fill <name=value>`, repeatable.
    var fill: OptionSpec
    /// `--click <selector>`, repeatable.
    var click: OptionSpec

    /// The options in the order help lists them.
    var all: [OptionSpec] { [username, password, usernameField, passwordField, fill, click] }

    /// `sign-in`'s.
    static let signIn = PersonOptions(
        username: .option(
            "username", value: "name", help: "What the user types as username (default: alice@example.com)."),
        password: .option(
            "password", value: "secret", help: "What the user types as password (default: alice-password)."),
        fill: .option(
            "fill", value: "name=value",
            help:
                "Another form field the user fills (repeatable); the name may be a CSS selector or"
                + " label:TEXT for a page the person cannot read alone.",
            repeatable: true
        ),
        click: .option(
            "click", value: "selector",
            help:
                "A button to press (CSS selector or label:TEXT) where the person's choice is wrong (repeatable).",
            repeatable: true))

    /// `audit`'s: the test user.
    static let audit = PersonOptions(
        username: .option(
            "username", value: "name", help: "The test user's username (default: alice@example.com)."),
        password: .option(
            "password", value: "secret", help: "The test user's password (default: alice-password)."),
        fill: .option(
            "fill", value: "name=value", help: "Another form field the user fills (repeatable).",
            repeatable: true),
        click: .option("click", value: "selector", help: "A button to press (repeatable).", repeatable: true))
}

/// The options of `sign-in` besides the shared ones.
enum SignInCommandOptions {
    /// `--client-id <id>`.
    static let clientID = OptionSpec.option(
        "client-id", value: "id", help: "The client id (default: com.example.app).")
    /// `--redirect-uri <uri>`.
    static let redirectURI = OptionSpec.option(
        "redirect-uri", value: "uri", help: "The redirect URI (default: com.example.app://auth/callback).")
    /// `--profile <name>`.
    static let profile = OptionSpec.option(
        "profile", value: "name",
        help: "The SDK behaviour profile (default, strict, naive, strict-clock, appauth-clock, …)."
    )
    /// `--shared-session`.
    static let sharedSession = OptionSpec.flag(
        "shared-session", help: "Use the system browser's cookies (not an ephemeral session).")
    /// `--deny-consent`.
    static let denyConsent = OptionSpec.flag(
        "deny-consent",
        help: "Deny the consent page instead of approving it; fails when no consent page is shown.")
    /// `--refresh`.
    static let refresh = OptionSpec.flag("refresh", help: "Refresh the tokens after signing in.")
    /// `--sign-out`.
    static let signOut = OptionSpec.flag(
        "sign-out",
        help:
            "Sign out at the end: the end-session request in the web sheet (exit 1 when the issuer refuses it)."
    )
    /// `--post-logout-redirect-uri <uri>`.
    static let postLogoutRedirectURI = OptionSpec.option(
        "post-logout-redirect-uri", value: "uri",
        help:
            "Where the issuer sends the sheet after sign-out (registered at the issuer); its state is checked."
    )
}

/// The options of `apple-sign-in` besides the shared ones.
enum AppleSignInCommandOptions {
    /// `--apple <url>`.
    static let apple = OptionSpec.option(
        "apple", value: "url", help: "The simulated Apple (signinsim serve's apple: URL).")
    /// `--client-id <id>`.
    static let clientID = OptionSpec.option(
        "client-id", value: "id", help: "The client id and bundle id (default: com.example.app).")
    /// `--email <address>`.
    static let email = OptionSpec.option(
        "email", value: "address", help: "The Apple ID's email.", required: true)
    /// `--given-name <name>`.
    static let givenName = OptionSpec.option("given-name", value: "name", help: "The Apple ID's given name.")
    /// `--family-name <name>`.
    static let familyName = OptionSpec.option(
        "family-name", value: "name", help: "The Apple ID's family name.")
    /// `--profile <name>`.
    static let profile = OptionSpec.option(
        "profile", value: "name", help: "The SDK behaviour profile (default, never-send-user-profile, …).")
}

/// `sign-in`'s options, checked, and the run.
struct SignInRun {
    var issuer: String?
    var clientID: String
    var redirectURI: String
    var user: WebUserScript
    var client: ClientSettings
    var profile: BehaviorProfile
    /// `--leeway`: replaces the profile's leeway on `exp`.
    var leeway: Int64?
    var sharedSession: Bool
    var refresh: Bool
    var signOut: Bool
    var postLogoutRedirectURI: String?
    var seed: UInt64?
    /// `--browser`; nil for the automatic choice.
    var browser: BrowserEngine?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        issuer = arguments.value(OneShotOptions.issuer)
        if let text = arguments.value(SignInSimCLI.browserOption) {
            guard let engine = BrowserEngine(rawValue: text) else {
                throw UsageError(
                    "The value '\(text)' is invalid for '--browser <engine>': expected one of "
                        + BrowserEngine.allCases.map(\.rawValue).joined(separator: ", "))
            }
            browser = engine
        }
        seed = try arguments.seed(SignInSimCLI.oneShotSeedOption)
        postLogoutRedirectURI = arguments.value(SignInCommandOptions.postLogoutRedirectURI)
        clientID = arguments.value(SignInCommandOptions.clientID) ?? "com.example.app"
        redirectURI = arguments.value(SignInCommandOptions.redirectURI) ?? "com.example.app://auth/callback"
        user = try Self.person(
            arguments, options: .signIn,
            consent: arguments.flag(SignInCommandOptions.denyConsent) ? .deny : .approve)
        client = try ClientSettings(arguments)
        do {
            profile = try BehaviorProfile(named: arguments.value(SignInCommandOptions.profile) ?? "default")
        } catch {
            throw UsageError("The value is invalid for '--profile <name>': \(error.message)")
        }
        leeway = try Self.leeway(arguments)
        sharedSession = arguments.flag(SignInCommandOptions.sharedSession)
        refresh = arguments.flag(SignInCommandOptions.refresh)
        signOut = arguments.flag(SignInCommandOptions.signOut)
    }

    /// The person in the sheet, from `--username`, `--password`, the field names, `--fill` and
    /// `--click` (a `--fill` name that is a CSS selector or `label:TEXT` is an override), as
    /// the command declares them in `options`.
    static func person(
        _ arguments: ParsedArguments, options: PersonOptions, consent: WebUserScript.ConsentDecision
    )
        throws(UsageError) -> WebUserScript
    {
        var others = FormParameters()
        var overrides: [WebPageOverride] = []
        for pair in arguments.allValues(options.fill) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError(
                    "The value '\(pair)' is invalid for '--fill <name=value>': expected NAME=VALUE")
            }
            let (name, value) = (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
            if WebElementTarget.isTarget(name) {
                overrides.append(.fill(WebElementTarget(name), value: value))
            } else {
                others.append(name, value)
            }
        }
        overrides += arguments.allValues(options.click).map { .click(WebElementTarget($0)) }
        var person = WebUserScript.signIn(
            username: arguments.value(options.username) ?? "alice@example.com",
            password: arguments.value(options.password) ?? "alice-password",
            usernameField: arguments.value(options.usernameField) ?? "username",
            passwordField: arguments.value(options.passwordField) ?? "password", otherFields: others,
            consent: consent)
        person.overrides = overrides
        return person
    }

    /// `--leeway <seconds>`: a whole number of seconds, not negative.
    static func leeway(_ arguments: ParsedArguments) throws(UsageError) -> Int64? {
        guard let leeway = try arguments.integer(OneShotOptions.leeway) else { return nil }
        guard leeway >= 0 else {
            throw UsageError(
                "The value '\(leeway)' is invalid for '--leeway <seconds>': it must not be negative")
        }
        return leeway
    }

    /// What the app configures its SDK with, against `issuer`.
    func options(issuer: String, context: CLIContext) throws -> SignInOptions {
        var options = SignInOptions(
            issuer: issuer, clientID: clientID, redirectURI: redirectURI,
            prefersEphemeralSession: !sharedSession, leeway: leeway, profile: profile)
        try client.apply(to: &options, context: context)
        options.postLogoutRedirectURI = postLogoutRedirectURI
        return options
    }

    /// The sheet's engine and, for `webkit`, the engine found: `--browser`, or `lite` against
    /// the embedded issuer and `webkit` against a real one when it is installed.
    func engine(context: CLIContext) throws -> (BrowserEngine, WebKitEngine?) {
        let automatic = browser == nil
        let wanted = browser ?? (issuer == nil ? .lite : .webkit)
        guard wanted == .webkit else { return (.lite, nil) }
        do {
            return (.webkit, try WebKitEngine.locate(environment: context.environment))
        } catch {
            guard automatic else { throw CommandFailure(error.message, exitCode: .invalidInput) }
            context.writeError(
                "signinsim: the sheet runs in lite, which runs no JavaScript: \(error.message)\n")
            return (.lite, nil)
        }
    }

    func run(context: CLIContext) async throws -> ExitCode {
        var options = try options(issuer: issuer ?? "", context: context)
        let (engine, webKit) = try engine(context: context)
        let world = try await OneShotWorld.start(issuer: issuer, apple: nil, seed: seed, webKit: webKit)
        if issuer == nil, let identity = world.identity { options.issuer = identity.issuerURL }
        let app = try await OneShotWorld.launchApp(in: world, options: options, browser: engine)
        app.webUser = user
        var report: [String: JSONValue] = [:]
        var step = "sign-in"
        let sheetMark = app.sheetCount
        do {
            var session = try await app.perform { try await $0.signIn() }
            if let finding = app.sheets(since: sheetMark).compactMap({
                ConsentRefusalIgnored(trace: $0.trace, engine: $0.engine)
            }).last {
                // Signed in all the same: the session is printed, then why that is a failure.
                var summary = session.summary.objectValue ?? [:]
                summary["browser"] = .string(engine.rawValue)
                context.printJSON(.object(summary))
                throw finding
            }
            if refresh {
                step = "refresh"
                let before = session.accessToken
                session = try await app.perform { try await $0.renewSession() }
                report["refreshed"] = .bool(session.accessToken != before)
            }
            var summary = session.summary.objectValue ?? [:]
            if signOut {
                step = "sign-out"
                let evidence = try await SignOutEvidence.signOut(app)
                for (key, value) in evidence.summary { summary[key] = value }
                if let refusal = evidence.refusal {
                    // Signed in all the same: the session is printed, then the refusal.
                    context.printJSON(.object(summary))
                    throw refusal
                }
            }
            for (key, value) in report { summary[key] = value }
            summary["browser"] = .string(engine.rawValue)
            if let seed { summary["seed"] = .int(Int64(truncatingIfNeeded: seed)) }
            context.printJSON(.object(summary))
            await world.shutdown()
            await webKit?.shutdown()
            return .success
        } catch {
            let pages = app.lastWebTrace.map {
                "\($0.method.rawValue) \(URLParts.stripQueryAndFragment($0.url)) → \($0.status ?? 0)"
            }
            let trace = pages.isEmpty ? "" : "\n  pages: " + pages.joined(separator: "\n         ")
            await world.shutdown()
            await webKit?.shutdown()
            throw CommandFailure("step \(step): \(error)\(trace)")
        }
    }
}

/// `apple-sign-in`'s options, checked, and the run.
struct AppleSignInRun {
    var issuer: String?
    var apple: String?
    var clientID: String
    var account: AppleIDAccount
    var client: ClientSettings
    var profile: BehaviorProfile
    var seed: UInt64?
    /// `--leeway`: replaces the profile's leeway on `exp`.
    var leeway: Int64?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        issuer = arguments.value(OneShotOptions.issuer)
        apple = arguments.value(AppleSignInCommandOptions.apple)
        seed = try arguments.seed(SignInSimCLI.oneShotSeedOption)
        if issuer != nil, apple == nil {
            throw UsageError(
                "'--apple <url>' is required with '--issuer <url>' (the simulated Apple to authorize at)")
        }
        clientID = arguments.value(AppleSignInCommandOptions.clientID) ?? "com.example.app"
        account = AppleIDAccount(
            email: arguments.value(AppleSignInCommandOptions.email) ?? "",
            givenName: arguments.value(AppleSignInCommandOptions.givenName),
            familyName: arguments.value(AppleSignInCommandOptions.familyName))
        client = try ClientSettings(arguments)
        do {
            profile = try BehaviorProfile(
                named: arguments.value(AppleSignInCommandOptions.profile) ?? "default")
        } catch {
            throw UsageError("The value is invalid for '--profile <name>': \(error.message)")
        }
        leeway = try SignInRun.leeway(arguments)
    }

    /// What the app configures its SDK with, against `issuer`.
    func options(issuer: String, context: CLIContext) throws -> SignInOptions {
        var options = SignInOptions(
            issuer: issuer, clientID: clientID, redirectURI: "\(clientID)://auth/callback", leeway: leeway,
            profile: profile)
        try client.apply(to: &options, context: context)
        return options
    }

    func run(context: CLIContext) async throws -> ExitCode {
        var options = try options(issuer: issuer ?? "", context: context)
        let world = try await OneShotWorld.start(issuer: issuer, apple: apple, seed: seed)
        if issuer == nil, let identity = world.identity { options.issuer = identity.issuerURL }
        let app = try await OneShotWorld.launchApp(in: world, options: options, appleURL: apple)
        app.phone.appleAccount = account
        do {
            let session = try await app.perform { try await $0.signInWithApple() }
            var summary = session.summary.objectValue ?? [:]
            if let seed { summary["seed"] = .int(Int64(truncatingIfNeeded: seed)) }
            context.printJSON(.object(summary))
            await world.shutdown()
            return .success
        } catch {
            await world.shutdown()
            throw CommandFailure("step apple-sign-in: \(error)")
        }
    }
}

/// The world of a one-shot command: the embedded issuer in process, or a real one.
extension SignInSimCLI {
    /// `--seed` of the one-shot commands: without it, every run draws fresh randomness.
    static let oneShotSeedOption = OptionSpec.option(
        "seed", value: "n",
        help:
            "Derive state, nonce, PKCE and DPoP keys from this seed (the same on every run; printed"
            + " in the output). Default: fresh randomness from the system, as a real phone's.")
}

/// The world of a one-shot command. Without a seed its randomness is the system's: against a
/// real issuer, `state`, `nonce` and PKCE values must differ from run to run (RFC 6749 §10.12,
/// RFC 7636 §7.1), and a QA run must not replay yesterday's.
enum OneShotWorld {
    static func start(issuer: String?, apple: String?, seed: UInt64?, webKit: WebKitEngine? = nil)
        async throws
        -> SimulationWorld
    {
        if issuer != nil { return SimulationWorld.external(seed: seed, webKit: webKit) }
        do {
            return try await SimulationWorld.embedded(
                seed: seed, epoch: SystemWallClock().now(), webKit: webKit)
        } catch {
            throw CommandFailure("cannot start the embedded issuer: \(error.message)")
        }
    }

    static func launchApp(
        in world: SimulationWorld, options: SignInOptions, appleURL: String? = nil,
        browser: BrowserEngine = .lite
    ) async throws -> SimulatedApp {
        do {
            let phone = try world.addPhone(appleURL: appleURL)
            let app = try phone.install(
                AppConfiguration(bundleID: options.clientID, options: options, browser: browser))
            try await app.launch()
            if let error = app.configureError { throw CommandFailure("step configure: \(error)") }
            return app
        } catch let failure as CommandFailure {
            await world.shutdown()
            throw failure
        } catch {
            await world.shutdown()
            throw CommandFailure("step launch: \(error)")
        }
    }
}
