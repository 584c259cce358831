import Audit
import HTTPCore
import JSON
import OAuthCore
import ScenarioReports
import ScenarioRunner
import SignInSDK
import Simulator
import WebAuthSession
import WebKitSession

extension SignInSimCLI {
    static let auditCommand = CommandSpec(
        name: "audit",
        abstract: "Audit an issuer for native apps: a scorecard of checks, each with its evidence.",
        discussion: """
            Plays a native app against the issuer on a simulated phone: discovery, authorization
            requests in the web sheet as the test user (near misses of the redirect URI, PKCE left
            out or plain, an unsupported response type), codes redeemed twice or with the wrong
            verifier, redirect URI or client, the ID token claim by claim, refresh rotation, reuse
            and a race, UserInfo, revocation, DPoP when advertised, and RP-initiated logout with
            proof that the session ended. Each check is pass, warn (a SHOULD), fail (a MUST) or
            skip (with why), cites its rule, and names the exchanges behind it as the HAR numbers
            them. Only the test user's own session and tokens are touched, within a request
            budget. Exit 0 when no check failed, 1 when one did, 2 when the audit could not run.
            Without --issuer it audits the embedded issuer. The checks are listed in docs/audit.md.
            """,
        options: [
            OneShotOptions.issuer, AuditCommandOptions.clientID, AuditCommandOptions.redirectURI,
            AuditCommandOptions.loopbackRedirectURI, AuditCommandOptions.privateUseRedirectURI,
            AuditCommandOptions.postLogoutRedirectURI, AuditCommandOptions.otherClientID,
            AuditCommandOptions.otherClientSecret, AuditCommandOptions.otherClientAuthMethod,
        ] + PersonOptions.audit.all + [
            SignInSimCLI.browserOption, AuditCommandOptions.only, AuditCommandOptions.skip,
            AuditCommandOptions.format, AuditCommandOptions.html, AuditCommandOptions.har,
            AuditCommandOptions.maxRequests, AuditCommandOptions.waitCodeExpiry,
            SignInSimCLI.oneShotSeedOption,
        ] + ClientSettings.registrationOptions + ClientSettings.authorizationOptions,
        run: { arguments, context in
            try await AuditCommandRun(arguments, context: context).run(context: context, arguments: arguments)
        })
}

/// The options of `audit` besides the shared ones.
enum AuditCommandOptions {
    /// `--client-id <id>`.
    static let clientID = OptionSpec.option(
        "client-id", value: "id", help: "The native app's client id (default: com.example.app).")
    /// `--redirect-uri <uri>`.
    static let redirectURI = OptionSpec.option(
        "redirect-uri", value: "uri",
        help: "Its registered redirect URI (default: com.example.app://auth/callback).")
    /// `--loopback-redirect-uri <uri>`.
    static let loopbackRedirectURI = OptionSpec.option(
        "loopback-redirect-uri", value: "uri",
        help:
            "A registered http://127.0.0.1 redirect URI, for the loopback checks (RFC 8252 §7.3, §8.3)."
    )
    /// `--private-use-redirect-uri <uri>`.
    static let privateUseRedirectURI = OptionSpec.option(
        "private-use-redirect-uri", value: "uri",
        help:
            "A registered private-use scheme redirect URI (com.example.app:/callback), for its check (RFC 8252 §7.1)."
    )
    /// `--post-logout-redirect-uri <uri>`.
    static let postLogoutRedirectURI = OptionSpec.option(
        "post-logout-redirect-uri", value: "uri",
        help: "A registered post-logout redirect URI, for the logout checks.")
    /// `--other-client-id <id>`.
    static let otherClientID = OptionSpec.option(
        "other-client-id", value: "id",
        help:
            "A second client registered at the issuer: codes and refresh tokens must be refused to it."
    )
    /// `--other-client-secret <secret>`.
    static let otherClientSecret = OptionSpec.option(
        "other-client-secret", value: "secret", help: "The second client's secret.")
    /// `--other-client-auth-method <method>`.
    static let otherClientAuthMethod = OptionSpec.option(
        "other-client-auth-method", value: "method",
        help: "How the second client authenticates: " + TokenEndpointAuthMethod.spelledOut + ".",
        allowed: TokenEndpointAuthMethod.allCases.map(\.rawValue))
    /// `--only <ids>`.
    static let only = OptionSpec.option(
        "only", value: "ids",
        help: "Run only these checks (comma-separated ids or groups, as docs/audit.md lists).")
    /// `--skip <ids>`.
    static let skip = OptionSpec.option(
        "skip", value: "ids", help: "Skip these checks (comma-separated ids or groups).")
    /// `--format <format>`.
    static let format = OptionSpec.option(
        "format", value: "format", help: "What to print: text (default) or json.", allowed: ["text", "json"])
    /// `--html <file>`.
    static let html = OptionSpec.option(
        "html", value: "file", help: "Write the scorecard with the exchanges behind each check as a page.")
    /// `--har <file>`.
    static let har = OptionSpec.option(
        "har", value: "file", help: "Write every exchange as an HTTP Archive, numbered as the evidence.")
    /// `--max-requests <n>`.
    static let maxRequests = OptionSpec.option(
        "max-requests", value: "n",
        help: "The most requests the audit may send, its sheets' included (default: 600).")
    /// `--wait-code-expiry`.
    static let waitCodeExpiry = OptionSpec.flag(
        "wait-code-expiry",
        help: "Against a real issuer, wait ten minutes to check that a code expires (otherwise skipped)."
    )
}

/// `audit`'s options, checked, and the run.
struct AuditCommandRun {
    var issuer: String?
    var target: AuditTarget
    var format: String
    var html: String?
    var har: String?
    var seed: UInt64?
    var browser: BrowserEngine?

    init(_ arguments: ParsedArguments, context: CLIContext) throws {
        issuer = arguments.value(OneShotOptions.issuer)
        browser = try SignInSimCLI.requestedBrowser(arguments)
        seed = try arguments.seed(SignInSimCLI.oneShotSeedOption)
        format = arguments.value(AuditCommandOptions.format) ?? "text"
        html = arguments.value(AuditCommandOptions.html)
        har = arguments.value(AuditCommandOptions.har)
        let settings = try ClientSettings(arguments)
        let person = try SignInRun.person(arguments, options: .audit, consent: .approve)
        let clientID = arguments.value(AuditCommandOptions.clientID) ?? "com.example.app"
        var target = AuditTarget(
            issuer: issuer ?? "",
            client: AuditClient(
                id: clientID, secret: settings.clientSecret, key: try settings.clientKey(context: context),
                assertionAudience: settings.assertionAudience ?? .issuer, method: settings.method),
            redirectURI: arguments.value(AuditCommandOptions.redirectURI)
                ?? "com.example.app://auth/callback", person: person)
        if let loopback = arguments.value(AuditCommandOptions.loopbackRedirectURI) {
            target.loopbackRedirectURI = loopback
        }
        if let privateUse = arguments.value(AuditCommandOptions.privateUseRedirectURI) {
            target.privateUseRedirectURI = privateUse
        }
        target.postLogoutRedirectURI = arguments.value(AuditCommandOptions.postLogoutRedirectURI)
        if let other = arguments.value(AuditCommandOptions.otherClientID) {
            target.otherClient = AuditClient(
                id: other, secret: arguments.value(AuditCommandOptions.otherClientSecret),
                method: arguments.value(AuditCommandOptions.otherClientAuthMethod).flatMap(
                    TokenEndpointAuthMethod.init(rawValue:)))
        }
        if let scopes = settings.scopes { target.scopes = scopes }
        target.audience = settings.audience
        target.authorizationParameters = Self.authorizationParameters(settings, scopes: target.scopes)
        target.selection = try Self.selection(
            only: arguments.value(AuditCommandOptions.only), skip: arguments.value(AuditCommandOptions.skip))
        target.waitsForCodeExpiry = arguments.flag(AuditCommandOptions.waitCodeExpiry)
        // A real issuer may still be committing the race's first answer when the second comes.
        target.racePause = .milliseconds(500)
        if let budget = try arguments.integer(AuditCommandOptions.maxRequests) {
            guard budget > 0 else { throw UsageError("The value for '--max-requests <n>' must be positive") }
            target.maximumRequests = Int(budget)
        }
        self.target = target
    }

    /// The authorization request's own options, as every flow of the audit sends them (a check
    /// that needs its own value of one, `prompt=none` or `max_age`, replaces it). The prompt is
    /// `consent` when the scopes ask for `offline_access` unless told otherwise, as `sign-in`
    /// sends it (OpenID Connect Core §11).
    static func authorizationParameters(_ settings: ClientSettings, scopes: [String]) -> [String: String] {
        var parameters = settings.parameters
        switch settings.prompt {
        case .automatic where scopes.contains("offline_access"): parameters[OAuthParameter.prompt] = "consent"
        case .automatic, .omitted: break
        case .values(let values): parameters[OAuthParameter.prompt] = values.joined(separator: " ")
        }
        let named: [(String, String?)] = [
            (OAuthParameter.loginHint, settings.loginHint), (OAuthParameter.uiLocales, settings.uiLocales),
            ("organization", settings.organization),
            (OAuthParameter.maxAge, settings.maxAge.map(String.init)),
            ("acr_values", settings.acrValues),
        ]
        for case (let name, let value?) in named { parameters[name] = value }
        return parameters
    }

    /// `--only` and `--skip`: check ids or group names, comma-separated; an unknown one is a
    /// usage error listing the groups.
    static func selection(only: String?, skip: String?) throws(UsageError) -> Set<AuditCheck> {
        func checks(_ text: String, option: String) throws(UsageError) -> Set<AuditCheck> {
            var result = Set<AuditCheck>()
            for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
            where !word.isEmpty {
                if let check = AuditCheck(rawValue: word) {
                    result.insert(check)
                } else if let group = AuditCheck.Group(rawValue: word) {
                    result.formUnion(AuditCheck.allCases.filter { $0.group == group })
                } else {
                    let groups = AuditCheck.Group.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(
                        "The value '\(word)' is invalid for '--\(option) <ids>': not a check id (docs/audit.md) "
                            + "nor a group (\(groups))")
                }
            }
            return result
        }
        var selected =
            try only.map { text throws(UsageError) in try checks(text, option: "only") }
            ?? Set(AuditCheck.allCases)
        if let skip { selected.subtract(try checks(skip, option: "skip")) }
        return selected
    }

    func run(context: CLIContext, arguments: ParsedArguments) async throws -> ExitCode {
        for destination in [
            html.map { ReportDestination.file(option: AuditCommandOptions.html.long, path: $0) },
            har.map { ReportDestination.file(option: AuditCommandOptions.har.long, path: $0) },
        ].compactMap({ $0 }) {
            do {
                try destination.check()
            } catch {
                throw CommandFailure("\(error)", exitCode: .invalidInput)
            }
        }
        let (engine, webKit) = try engine(context: context)
        var target = self.target
        target.engine = engine
        let outcome: (scorecard: Scorecard, world: SimulationWorld, phone: SimulatedPhone)
        do {
            if issuer == nil {
                let selection = target.selection
                let maximum = target.maximumRequests
                let parameters = target.authorizationParameters
                outcome = try await AuditWorld.auditEmbedded(seed: seed, engine: engine, webKit: webKit) {
                    $0.selection = selection
                    $0.maximumRequests = maximum
                    $0.authorizationParameters = parameters
                }
            } else {
                outcome = try await AuditWorld.auditExternal(target, seed: seed, webKit: webKit)
            }
        } catch {
            await webKit?.shutdown()
            throw CommandFailure("the audit could not start: \(error)", exitCode: .invalidInput)
        }
        let scorecard = outcome.scorecard
        let exchanges = outcome.phone.device.network.log.map(ScenarioWorld.recorded)
        await outcome.world.shutdown()
        await webKit?.shutdown()
        if let har {
            try ReportDestination.write(
                HARWriter.render(exchanges, creator: "signinsim audit", version: SignInSimCLI.version),
                to: har)
        }
        if let html {
            try ReportDestination.write(
                HTMLReport.renderAudit(
                    title: "SignInSim audit of \(scorecard.issuer)", verdict: Self.verdict(scorecard),
                    facts: Self.facts(scorecard),
                    groups: AuditCheck.Group.allCases.map { group in
                        (
                            group.title,
                            scorecard.findings.filter { $0.check.group == group }.map {
                                HTMLReport.AuditRow(
                                    id: $0.check.rawValue, title: $0.check.title, status: $0.status.rawValue,
                                    summary: $0.summary, reference: $0.check.reference,
                                    conformanceTest: $0.check.conformanceTest, evidence: $0.evidence)
                            }
                        )
                    },
                    exchanges: exchanges,
                    commandLine: RunCommand.displayed(
                        arguments,
                        hiding: [
                            PersonOptions.audit.password, ClientSettings.clientSecretOption,
                            AuditCommandOptions.otherClientSecret, PersonOptions.audit.fill,
                        ])),
                to: html)
        }
        if format == "json" {
            context.printJSON(scorecard.json)
        } else {
            context.writeOut(Self.text(scorecard))
        }
        if scorecard.stoppedEarly != nil,
            scorecard.count(.pass) + scorecard.count(.fail) + scorecard.count(.warn) == 0
        {
            return .invalidInput
        }
        return scorecard.count(.fail) > 0
            ? .failure : (scorecard.stoppedEarly != nil ? .invalidInput : .success)
    }

    /// The sheet's engine: `--browser`, or `lite` against the embedded issuer and `webkit`
    /// against a real one when it is installed (as `sign-in` chooses).
    func engine(context: CLIContext) throws -> (BrowserEngine, WebKitEngine?) {
        let wanted = browser ?? (issuer == nil ? .lite : .webkit)
        guard wanted == .webkit else { return (.lite, nil) }
        do {
            return (.webkit, try WebKitEngine.locate(environment: context.environment))
        } catch {
            guard browser == nil else { throw CommandFailure(error.message, exitCode: .invalidInput) }
            context.writeError(
                "signinsim: the sheet runs in lite, which runs no JavaScript: \(error.message)\n")
            return (.lite, nil)
        }
    }

    static func verdict(_ scorecard: Scorecard) -> String {
        AuditStatus.allCases.map { "\(scorecard.count($0)) \($0.rawValue)" }.joined(separator: ", ")
    }

    static func facts(_ scorecard: Scorecard) -> [(String, String)] {
        var facts = [
            ("Issuer", scorecard.issuer), ("Client", scorecard.clientID), ("Browser", scorecard.engine),
            ("Requests", "\(scorecard.requests)"), ("Duration", "\(scorecard.milliseconds) ms"),
        ]
        if let profile = scorecard.refreshProfile { facts.append(("Refresh behaves like", profile)) }
        if let stopped = scorecard.stoppedEarly { facts.append(("Stopped early", stopped)) }
        return facts
    }

    /// The text scorecard: a line per check under its group, then the totals.
    static func text(_ scorecard: Scorecard) -> String {
        var lines = [
            "signinsim audit of \(scorecard.issuer) (client \(scorecard.clientID), \(scorecard.engine))"
        ]
        for group in AuditCheck.Group.allCases {
            let findings = scorecard.findings.filter { $0.check.group == group }
            guard !findings.isEmpty else { continue }
            lines.append("")
            lines.append(group.title)
            for finding in findings {
                let evidence =
                    finding.evidence.isEmpty
                    ? "" : " [#\(finding.evidence.map(String.init).joined(separator: ",#"))]"
                lines.append(
                    "  \(finding.status.rawValue.uppercased().padding(toLength: 4, withPad: " ", startingAt: 0))  \(finding.check.rawValue): \(finding.summary)\(evidence)"
                )
                if finding.status == .fail || finding.status == .warn {
                    lines.append("        rule: \(finding.check.title) (\(finding.check.reference))")
                }
            }
        }
        lines.append("")
        if let profile = scorecard.refreshProfile { lines.append("refresh behaves like: \(profile)") }
        if let stopped = scorecard.stoppedEarly { lines.append("stopped early: \(stopped)") }
        lines.append("\(verdict(scorecard)); \(scorecard.requests) requests in \(scorecard.milliseconds) ms")
        return lines.joined(separator: "\n") + "\n"
    }
}
