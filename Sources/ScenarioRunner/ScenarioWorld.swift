import AppleID
import Clocks
public import Device
import Foundation
import HTTPClient
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
public import Scenario
import SignInSDK
import Simulator
import WebKitSession

/// The world one scenario runs in, built fresh from its header: the embedded issuer (with the
/// scenario's tenant) or a real one, one phone, its apps installed (not launched).
public final class ScenarioWorld: Sendable {
    let scenario: Scenario
    let world: SimulationWorld
    let phone: SimulatedPhone
    /// Apps by bundle id, in the header's order.
    let apps: [String: SimulatedApp]
    let setups: [String: AppSetup]
    let firstApp: String
    /// The issuer the apps use.
    let issuerURL: String
    /// Set when the world re-enacts a capture.
    let replay: ReplayTarget?

    private init(
        scenario: Scenario, world: SimulationWorld, phone: SimulatedPhone, apps: [String: SimulatedApp],
        issuerURL: String, replay: ReplayTarget?
    ) {
        self.replay = replay
        self.scenario = scenario
        self.world = world
        self.phone = phone
        self.apps = apps
        self.setups = Dictionary(uniqueKeysWithValues: scenario.apps.map { ($0.bundleID, $0) })
        self.firstApp = scenario.apps[0].bundleID
        self.issuerURL = issuerURL
    }

    var isEmbedded: Bool { world.identity != nil }
    /// Whether the world's clock is the issuer's too: the embedded issuer's, or a replay's
    /// (the capture's times are the world's).
    var ownsIssuerClock: Bool { isEmbedded || replay != nil }

    /// Builds the world. Throws a `ScenarioError` for what the header got wrong (a tenant the
    /// issuer refuses, an unknown SDK profile), which makes the scenario invalid, not failed.
    static func build(
        _ scenario: Scenario, seed: UInt64?, replay: ReplayTarget? = nil, browsers: BrowserSelection = .init()
    ) async throws -> ScenarioWorld {
        let runDefault = browsers.runDefault(for: scenario)
        var webKit: WebKitEngine?
        if scenario.usesBrowser(.webkit, runDefault: runDefault) {
            guard let engine = browsers.webKit else {
                throw ScenarioError(
                    .invalid,
                    "the scenario's sheets run in webkit, but this run has no WebKit engine "
                        + "(install \(WebKitEngine.buildPackages.joined(separator: " ")) and build signinsim-webkit)",
                    at: scenario.location)
            }
            webKit = engine
        }
        let world: SimulationWorld
        let issuerURL: String
        var appleURL: String?
        switch scenario.issuer {
        case _ where replay != nil:
            world = SimulationWorld.external(seed: seed, epoch: replay?.epochSeconds, webKit: webKit)
            issuerURL = replay?.issuerURL ?? ""
            appleURL = replay?.appleURL
        case .embedded(let override):
            var tenant = Tenant.default
            if let override {
                do {
                    tenant = try TenantLoader.load(node: override.node, fileName: override.file)
                } catch {
                    throw ScenarioError(
                        .invalid, "tenant: \(error.message)",
                        at: SourceLocation(
                            file: override.file, line: error.line ?? override.node.mark.line,
                            column: error.column ?? override.node.mark.column))
                }
            }
            world = try await SimulationWorld.embedded(tenant: tenant, seed: seed, webKit: webKit)
            issuerURL = world.identity?.issuerURL ?? ""
        case .external(let external):
            world = SimulationWorld.external(seed: seed, webKit: webKit)
            issuerURL = external.url
            appleURL = external.appleURL
        }
        do {
            let phone = try world.addPhone(
                skew: scenario.device.skewSeconds, hasPasscode: scenario.device.hasPasscode,
                appleURL: appleURL, network: replay?.network, appleTransport: replay?.apple)
            if let account = scenario.device.appleAccount { phone.appleAccount = appleIDAccount(account) }
            var apps: [String: SimulatedApp] = [:]
            for setup in scenario.apps {
                let options = try Self.options(
                    setup, issuer: issuerURL + setup.issuerSuffix, profile: setup.profile,
                    at: scenario.location)
                apps[setup.bundleID] = try phone.install(
                    AppConfiguration(
                        bundleID: setup.bundleID, options: options,
                        browser: scenario.browser(for: setup, runDefault: runDefault)))
            }
            return ScenarioWorld(
                scenario: scenario, world: world, phone: phone, apps: apps, issuerURL: issuerURL,
                replay: replay)
        } catch {
            await world.shutdown()
            throw error
        }
    }

    /// What an app passes to `configure(options:)`, from its settings in the scenario;
    /// settings the SDK would refuse make the scenario invalid.
    static func options(
        _ setup: AppSetup, issuer: String, profile: BehaviorProfile, at location: SourceLocation
    )
        throws(ScenarioError) -> SignInOptions
    {
        var options = SignInOptions(
            issuer: issuer, clientID: setup.clientID, redirectURI: setup.redirectURI,
            clientSecret: setup.clientSecret, prefersEphemeralSession: !setup.sharedSession, profile: profile)
        options.scopes = setup.scopes
        options.audience = setup.audience
        options.usesDPoP = setup.usesDPoP
        options.leeway = setup.leeway
        options.postLogoutRedirectURI = setup.postLogoutRedirectURI
        options.clientAuthentication = setup.clientAuthentication.flatMap {
            SignInOptions.ClientAuthentication(rawValue: $0.rawValue)
        }
        if let audience = setup.clientAssertionAudience.flatMap({
            ClientAssertion.Audience(rawValue: $0.rawValue)
        }) {
            options.clientAssertionAudience = audience
        }
        options.prompt = SignInOptions.Prompt(text: setup.prompt ?? "")
        options.loginHint = setup.loginHint
        options.uiLocales = setup.uiLocales
        options.organization = setup.organization
        options.maxAge = setup.maxAge
        options.acrValues = setup.acrValues
        options.authorizationParameters = setup.authorizationParameters
        do throws(JOSEError) {
            switch setup.clientKey {
            case .file(let path, let text)?:
                do {
                    options.clientKey = try JWK.privateKey(text: text)
                } catch {
                    throw JOSEError(error.code, "client_key_file \(path): \(error.message)")
                }
            case .jwk(let json)?:
                options.clientKey = try JWK.privateKey(text: json.serializedString())
            case nil:
                break
            }
        } catch {
            throw ScenarioError(.invalid, "app \(setup.bundleID): \(error.message)", at: location)
        }
        do {
            try options.checkClientRegistration()
        } catch {
            throw ScenarioError(.invalid, "app \(setup.bundleID): \(error.message)", at: location)
        }
        return options
    }

    static func appleIDAccount(_ setup: AppleAccountSetup) -> AppleIDAccount {
        AppleIDAccount(
            email: setup.email, givenName: setup.givenName, familyName: setup.familyName,
            privateRelay: setup.privateRelay)
    }

    /// The app with bundle id `id`, or the first app. Every `app:` of a scenario is checked
    /// against the header's apps when the file is read (`StepDecoder`), so no id from a file
    /// reaches here unknown.
    func app(_ id: String?) -> SimulatedApp {
        guard let app = apps[id ?? firstApp] else { preconditionFailure("unknown app \(id ?? firstApp)") }
        return app
    }

    /// The header's settings of the app with bundle id `id`, or of the first app.
    func setup(_ id: String?) -> AppSetup {
        guard let setup = setups[id ?? firstApp] else { preconditionFailure("unknown app \(id ?? firstApp)") }
        return setup
    }

    /// Every exchange of the scenario, as report values: the phone's app network (the apps'
    /// SDKs and their sheets), its Apple ID sheet, and the embedded issuer calling Apple. Each
    /// names the page of the step it was sent during: the last page begun before it was sent.
    func exchanges(pages: [(id: String, began: ContinuousClock.Instant)] = []) -> [RecordedExchange] {
        let device = phone.device.network.log.map { ($0.sentAt, Self.recorded($0)) }
        let others = world.exchangeLog.all.map { entry in
            var recorded = Self.recorded(
                source: ExchangeSource(rawValue: entry.source) ?? .unknown,
                startedAt: entry.startedAtMilliseconds,
                request: entry.request, outcome: entry.outcome, milliseconds: entry.durationMilliseconds)
            recorded.app = entry.app
            return (entry.sentAt, recorded)
        }
        let all = device + others
        let firstSent = all.map(\.0).min()
        // World time first; exchanges sent at one world instant in the order they were sent.
        return
            all
            .sorted { ($0.1.startedAtMilliseconds, $0.0) < ($1.1.startedAtMilliseconds, $1.0) }
            .map { sentAt, exchange in
                var exchange = exchange
                exchange.pageref = Self.page(sentAt: sentAt, in: pages)
                if let firstSent {
                    let milliseconds = (sentAt - firstSent).inMilliseconds
                    exchange.wallClockOffsetMilliseconds = (milliseconds * 1000).rounded() / 1000
                }
                return exchange
            }
    }

    /// The id of the last page begun at or before `sentAt` (pages are in the order they
    /// began: a binary search, as a long run has thousands).
    static func page(
        sentAt: ContinuousClock.Instant, in pages: [(id: String, began: ContinuousClock.Instant)]
    )
        -> String?
    {
        var low = 0
        var high = pages.count
        while low < high {
            let middle = (low + high) / 2
            if pages[middle].began <= sentAt { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? pages[low - 1].id : nil
    }

    /// Whether each app had a session stored, read as the app would without refreshing: through
    /// its SDK while it runs, else straight from the keychain; absent when it cannot be read.
    func signedInAtEnd() async -> [String: Bool] {
        var states: [String: Bool] = [:]
        for (id, app) in apps {
            if let stored = try? await app.perform({ try await $0.hasStoredSession() }) {
                states[id] = stored
            } else if let stored = app.hasStoredCredentials() {
                states[id] = stored
            }
        }
        return states
    }

    /// An exchange of a phone's network as a report value: who sent it (the app, a sheet's
    /// browser, the device), and what came of it. The audit's HAR is these, in the log's order.
    public static func recorded(_ exchange: ConditionedTransport.Exchange) -> RecordedExchange {
        var recorded = Self.recorded(
            source: exchange.initiator.map { $0.agent == .browser ? .browser : .app } ?? .device,
            startedAt: exchange.startedAtMilliseconds, request: exchange.request,
            outcome: exchange.outcome, milliseconds: exchange.durationMilliseconds)
        recorded.app = exchange.initiator?.app
        recorded.engine = exchange.initiator?.engine
        return recorded
    }

    private static func recorded(
        source: ExchangeSource, startedAt: Int64, request: HTTPRequest,
        outcome: Result<HTTPResponse, HTTPError>,
        milliseconds: Double
    ) -> RecordedExchange {
        var recorded = RecordedExchange(
            source: source, startedAtMilliseconds: startedAt, method: request.method.rawValue,
            url: request.url,
            requestHeaders: request.headers.map { HeaderField($0.name, $0.value) }, requestBody: request.body,
            timeMilliseconds: milliseconds)
        switch outcome {
        case .success(let response):
            recorded.status = response.status
            recorded.responseHeaders = response.headers.map { HeaderField($0.name, $0.value) }
            recorded.responseBody = response.body
        case .failure(let error):
            recorded.error = error.message
        }
        return recorded
    }

    func shutdown() async { await world.shutdown() }
}
