import Foundation
import HTTPCore
import JOSE
import JSON
public import Recordings
import Scenario
public import SignInSDK
import Simulator
import Synchronization

/// Replays a capture against the simulated SDK: the app is put where the capture's app was
/// right after it signed in, then made to do what the capture shows it doing (refreshes,
/// concurrent ones in parallel, userinfo, sign-out) at the recorded times, against the
/// recorded issuer. The divergence report says where the simulated app's requests and the
/// capture's part ways.
///
/// The web sign-in itself is not replayed: its `state`, `nonce` and PKCE verifier were the
/// original app's random values. The session comes from the capture's first successful code
/// (or token) exchange, through `SignInClient.restore(_:)`.
public enum CaptureReplay {
    public struct Options: Sendable {
        public var profile: BehaviorProfile = .default
        public var mode: ReplayTransport.Mode = .strict
        /// Where `new-episodes` sends requests the capture lacks.
        public var newEpisodes: NewEpisodesTarget = .embedded
        /// Which parameters decide a match (by default all but `ReplayMatching.volatile`).
        public var matching = ReplayMatching()

        public init(
            profile: BehaviorProfile = .default, mode: ReplayTransport.Mode = .strict,
            newEpisodes: NewEpisodesTarget = .embedded
        ) {
            self.profile = profile
            self.mode = mode
            self.newEpisodes = newEpisodes
        }
    }

    /// Why a capture cannot be replayed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ capture: HARCapture, options: Options = Options()) async throws(Failure)
        -> ReplayReport
    {
        let plan = try ReplayPlan(capture)
        let epoch = plan.sessionStartedAt / 1000
        let world: SimulationWorld
        var fallback: (any HTTPTransport)?
        switch (options.mode, options.newEpisodes) {
        case (.newEpisodes, .embedded):
            do {
                world = try await SimulationWorld.embedded(
                    tenant: NewEpisodesTarget.tenant(for: plan), seed: 0, epoch: epoch)
            } catch {
                throw Failure(
                    description: "the embedded issuer for new episodes did not start: \(error.message)")
            }
            fallback = world.identity.flatMap {
                OriginRewritingTransport(recordedIssuer: plan.issuer, target: $0.issuerURL, inner: world.curl)
            }
        case (.newEpisodes, .issuer(let url)):
            world = SimulationWorld.external(seed: 0, epoch: epoch)
            guard
                let transport = OriginRewritingTransport(
                    recordedIssuer: plan.issuer, target: url, inner: world.curl)
            else { throw Failure(description: "\(url) is not an absolute URL to send new episodes to") }
            fallback = transport
        default:
            world = SimulationWorld.external(seed: 0, epoch: epoch)
        }
        let replay = ReplayTransport(
            exchanges: capture.exchanges, mode: options.mode, matching: options.matching, fallback: fallback,
            unsequenced: plan.cacheFetches)
        defer { Task { await world.shutdown() } }
        // The audit reads only the capture: it runs on another core while the app replays.
        let audit = Task.detached(priority: .medium) { TokenAudit.audit(capture, plan: plan) }
        var report = ReplayReport(
            issuer: plan.issuer, clientID: plan.clientID, profile: options.profile.description)
        do {
            let gate = BurstGate(inner: replay)
            let phone = try world.addPhone(network: gate)
            let app = try phone.install(
                AppConfiguration(
                    bundleID: plan.clientID,
                    options: {
                        var settings = SignInOptions(
                            issuer: plan.issuer, clientID: plan.clientID, redirectURI: plan.redirectURI,
                            clientSecret: plan.clientSecret, profile: options.profile)
                        settings.clientAuthentication = plan.clientAuthentication
                        return settings
                    }()))
            try await app.launch()
            let session = plan.session
            try await app.perform { try await $0.restore(session) }
            // A sequential replay goes on after the session's exchange: the sign-in before it
            // is not repeated (the launch's discovery request was served in order already).
            replay.continueSequence(from: plan.sessionEntry + 1)
            var now = plan.sessionStartedAt
            for wave in plan.waves {
                if wave.startedAt > now {
                    world.advance(by: (wave.startedAt - now) / 1000)
                    now = wave.startedAt
                }
                gate.expect(wave.actions.count)
                @Sendable func outcome(of action: ReplayPlan.Action) async -> String {
                    do throws(SignInError) {
                        switch action {
                        case .refresh:
                            _ = try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
                        case .userInfo: _ = try await app.perform { try await $0.userInfo() }
                        case .signOut: _ = try await app.perform { try await $0.signOut() }
                        }
                        return "ok"
                    } catch {
                        return error.code.rawValue
                    }
                }
                let outcomes: [String]
                if wave.actions.count == 1 {
                    // Most waves are one call: no child task to start and wait for.
                    outcomes = [await outcome(of: wave.actions[0])]
                } else {
                    outcomes = await withTaskGroup(of: (Int, String).self) { group in
                        for (index, action) in wave.actions.enumerated() {
                            group.addTask {
                                let result = await BurstGate.$slot.withValue(index) {
                                    await outcome(of: action)
                                }
                                gate.finished(slot: index)
                                return (index, result)
                            }
                        }
                        var outcomes: [(Int, String)] = []
                        for await outcome in group { outcomes.append(outcome) }
                        return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
                    }
                }
                // Calls of a burst are interchangeable: which one got which answer depends on
                // scheduling, so their outcomes are listed sorted.
                let interchangeable = Set(wave.actions).count == 1
                report.actions.append(
                    .init(
                        at: wave.startedAt, what: wave.actions.map(\.rawValue).joined(separator: " + "),
                        outcomes: interchangeable ? outcomes.sorted() : outcomes))
            }
            report.signedInAtEnd = (try? await app.perform { try await $0.hasStoredSession() }) ?? false
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(description: "the replay could not run: \(error)")
        }
        for served in replay.served where served.entry != nil && served.note != nil {
            // Sequential mode served the next entry, but it was recorded for another request.
            let entry = capture.entryNumber(of: served.entry ?? 0)
            report.notInCapture.append(
                "\(served.method) \(URLParts.stripQueryAndFragment(served.url)) (given #\(entry), \(served.note ?? ""))"
            )
        }
        for served in replay.served where served.entry == nil {
            let line = "\(served.method) \(URLParts.stripQueryAndFragment(served.url))"
            // Strict mode's note only repeats the section's title; the others say where it went.
            let note = served.note.flatMap { $0 == ReplayTransport.refusedNote ? nil : $0 }
            report.notInCapture.append(note.map { "\(line) (\($0))" } ?? line)
        }
        for entry in replay.unused where entry > plan.sessionEntry && plan.replayable.contains(entry) {
            let exchange = capture.exchanges[entry]
            report.notMadeByApp.append(
                "#\(capture.entryNumber(of: entry)) \(exchange.method) \(URLParts.stripQueryAndFragment(exchange.url))"
            )
        }
        // Key-set and discovery fetches depend on caches (the replay skipped the sign-in's own
        // ID token check), so only the app's calls count for order.
        report.reordered = replay.reordered.filter(plan.actionEntries.contains).map {
            "#\(capture.entryNumber(of: $0))"
        }
        report.tokens = await audit.value
        report.skipped = capture.skipped.map(\.description)
        return report
    }
}

/// What the replay does, read from the capture.
struct ReplayPlan {
    enum Action: String {
        case refresh
        case userInfo = "userinfo"
        case signOut = "sign-out"
    }

    struct Wave {
        var startedAt: Int64
        var actions: [Action]
        /// The refresh token a burst of refreshes presented.
        var refreshToken: String?
    }

    var issuer: String
    var clientID: String
    var redirectURI: String
    /// A confidential client's secret (or its redaction placeholder) and how it was sent.
    var clientSecret: String?
    var clientAuthentication: SignInOptions.ClientAuthentication?
    var discovery: [String: JSONValue]
    var session: Session
    var sessionEntry: Int
    var sessionStartedAt: Int64
    var waves: [Wave] = []
    /// Entries the app is expected to repeat after the session: token, userinfo, end-session
    /// (and the key set, when the app needs it again).
    var replayable = Set<Int>()
    /// The entries of the app's own calls (refresh, userinfo, end-session).
    var actionEntries = Set<Int>()
    /// Discovery and key-set fetches: when an app makes them depends on its caches.
    var cacheFetches = Set<Int>()

    init(_ capture: HARCapture) throws(CaptureReplay.Failure) {
        let exchanges = capture.exchanges
        guard
            let discoveryIndex = exchanges.firstIndex(where: {
                URLParts.path(of: $0.url).hasSuffix("/.well-known/openid-configuration") && $0.status == 200
            })
        else {
            throw .init(
                description:
                    "the capture has no answered discovery request (/.well-known/openid-configuration)")
        }
        let discoveryURL = URLParts.stripQueryAndFragment(exchanges[discoveryIndex].url)
        issuer = String(discoveryURL.dropLast("/.well-known/openid-configuration".count))
        guard let document = try? JSONValue.parseObject(exchanges[discoveryIndex].responseBody),
            let tokenEndpoint = document["token_endpoint"]?.stringValue
        else {
            throw .init(description: "the capture's discovery document is not JSON with a token_endpoint")
        }
        discovery = document
        let tokenPath = URLParts.path(of: tokenEndpoint)
        func parameters(_ exchange: RecordedExchange) -> FormParameters {
            (try? FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self))) ?? [:]
        }
        guard
            let sessionIndex = exchanges.indices.first(where: { index in
                let exchange = exchanges[index]
                let grant = parameters(exchange)["grant_type"] ?? ""
                return URLParts.path(of: exchange.url) == tokenPath && exchange.status == 200
                    && (grant == "authorization_code" || grant.hasSuffix("token-exchange"))
            })
        else {
            throw .init(
                description: "the capture has no successful code or token exchange to start the session from")
        }
        let sessionExchange = exchanges[sessionIndex]
        let sessionParameters = parameters(sessionExchange)
        clientID = sessionParameters["client_id"] ?? "unknown-client"
        redirectURI = sessionParameters["redirect_uri"] ?? "\(clientID)://callback"
        (clientSecret, clientAuthentication) = Self.clientCredentials(
            of: sessionExchange, form: sessionParameters)
        sessionEntry = sessionIndex
        sessionStartedAt = sessionExchange.startedAtMilliseconds
        guard let body = try? JSONValue.parseObject(sessionExchange.responseBody),
            let accessToken = body["access_token"]?.stringValue, let idToken = body["id_token"]?.stringValue,
            let claims = try? JWTClaims(json: JWT.decodeUnverified(idToken).claims.objectValue ?? [:])
        else {
            throw .init(
                description:
                    "the session's token response (entry \(sessionIndex)) lacks access_token or id_token")
        }
        session = Session(
            accessToken: accessToken, tokenType: body["token_type"]?.stringValue ?? "Bearer",
            idToken: idToken,
            refreshToken: body["refresh_token"]?.stringValue,
            expiresAt: sessionStartedAt / 1000 + (body["expires_in"]?.int64Value ?? 3600),
            scope: body["scope"]?.stringValue, claims: claims)

        let userinfoPath = document["userinfo_endpoint"]?.stringValue.map(URLParts.path(of:))
        let endSessionPath = document["end_session_endpoint"]?.stringValue.map(URLParts.path(of:))
        let jwksPath = document["jwks_uri"]?.stringValue.map(URLParts.path(of:))
        // A burst is refreshes that overlap in time and present one refresh token, as a race
        // does; refreshes one after the other (a rotated token each time) are separate waves
        // even when the clock did not move between them.
        var waveEnd: Int64 = .min
        for (index, exchange) in exchanges.enumerated() where exchange.method == "GET" {
            let path = URLParts.path(of: exchange.url)
            if path == jwksPath || path.hasSuffix("/.well-known/openid-configuration") {
                cacheFetches.insert(index)
            }
        }
        for index in exchanges.indices where index > sessionIndex {
            let exchange = exchanges[index]
            let path = URLParts.path(of: exchange.url)
            let action: Action?
            // The refresh token a refresh presented (the form is read once).
            var presented: String?
            if path == tokenPath, case let form = parameters(exchange), form["grant_type"] == "refresh_token"
            {
                action = .refresh
                presented = form["refresh_token"]
            } else if path == userinfoPath {
                action = .userInfo
            } else if path == endSessionPath {
                action = .signOut
            } else {
                action = nil
            }
            if path == jwksPath { replayable.insert(index) }
            guard let action else { continue }
            replayable.insert(index)
            actionEntries.insert(index)
            let start = exchange.startedAtMilliseconds
            let end = start + Int64(exchange.timeMilliseconds.rounded(.up))
            if var last = waves.last, start < waveEnd, action == .refresh, presented != nil,
                last.refreshToken == presented, last.actions.allSatisfy({ $0 == .refresh })
            {
                last.actions.append(action)
                waves[waves.count - 1] = last
                waveEnd = max(waveEnd, end)
            } else {
                waves.append(Wave(startedAt: start, actions: [action], refreshToken: presented))
                waveEnd = end
            }
        }
    }
}

extension ReplayPlan {
    /// The secret a confidential client sent with its code exchange, and how: `client_secret`
    /// in the body, or `Authorization: Basic` (RFC 6749 §2.3.1). A redacted Basic header gives
    /// its placeholder text as the secret: headers do not decide a match, the method does.
    static func clientCredentials(of exchange: RecordedExchange, form: FormParameters)
        -> (String?, SignInOptions.ClientAuthentication?)
    {
        if let secret = form["client_secret"] { return (secret, .post) }
        guard let header = exchange.requestHeaders.first(where: { $0.name.lowercased() == "authorization" })
        else {
            return (nil, nil)
        }
        switch BasicCredentials.read(header.value) {
        case .otherScheme: return (nil, nil)
        case .malformed(let credentials): return (credentials, .basic)
        case .notFormEncoded(let secret), .credentials(_, let secret): return (secret, .basic)
        }
    }
}

/// Checks of every ID token the capture holds, as the issuer's keys and the recorded clock
/// judge them.
enum TokenAudit {
    static func audit(_ capture: HARCapture, plan: ReplayPlan) -> [String] {
        let jwksPath = plan.discovery["jwks_uri"]?.stringValue.map(URLParts.path(of:))
        guard
            let keysExchange = capture.exchanges.first(where: {
                URLParts.path(of: $0.url) == jwksPath && $0.status == 200
            }),
            let keys = try? JWKSet(json: JSONValue.parse(keysExchange.responseBody))
        else { return ["no key set in the capture: ID tokens not checked"] }
        let collection = JWKCollection(keys)
        var lines: [String] = []
        for (index, exchange) in capture.exchanges.enumerated() {
            guard let body = try? JSONValue.parseObject(exchange.responseBody),
                let idToken = body["id_token"]?.stringValue
            else { continue }
            let now = exchange.startedAtMilliseconds / 1000
            do {
                _ = try JWT.verify(
                    idToken, keys: collection,
                    validation: .idToken(issuer: plan.issuer, clientID: plan.clientID, nonce: nil, now: now))
                lines.append(
                    "#\(capture.entryNumber(of: index)) ID token: verifies (signature, iss, aud, exp at the recorded time)"
                )
            } catch {
                lines.append("#\(capture.entryNumber(of: index)) ID token: \(error.message)")
            }
        }
        return lines
    }
}

/// What a replay found.
public struct ReplayReport: Sendable {
    public struct Step: Sendable {
        /// Recorded time (ms since the epoch) the step ran at.
        public var at: Int64
        public var what: String
        /// `ok`, or the SDK error code, per call.
        public var outcomes: [String]
    }

    public var issuer: String
    public var clientID: String
    public var profile: String
    public var actions: [Step] = []
    public var signedInAtEnd = false
    /// Requests the simulated app made that the capture lacks.
    public var notInCapture: [String] = []
    /// Requests of the capture (after the session began) the simulated app did not make.
    public var notMadeByApp: [String] = []
    /// Capture entries the app reached out of recorded order.
    public var reordered: [String] = []
    public var tokens: [String] = []
    public var skipped: [String] = []

    /// Whether the simulated app behaved as the capture shows.
    public var matches: Bool { notInCapture.isEmpty && notMadeByApp.isEmpty && reordered.isEmpty }

    public var text: String {
        var lines = [
            "replay of \(issuer) as client \(clientID), SDK profile \(profile)",
            "the session starts from the capture's first code exchange; the web sign-in is not replayed",
        ]
        for step in actions {
            lines.append("  \(step.what) at \(step.at / 1000): \(step.outcomes.joined(separator: ", "))")
        }
        lines.append("  signed in at the end: \(signedInAtEnd ? "yes" : "no")")
        func section(_ title: String, _ items: [String]) {
            lines.append("\(title): \(items.isEmpty ? "none" : "")")
            lines += items.map { "  " + $0 }
        }
        section("requests the app made that the capture lacks", notInCapture)
        section("requests in the capture the app did not make", notMadeByApp)
        section("out of recorded order", reordered)
        section("recorded ID tokens", tokens)
        if !skipped.isEmpty { section("capture entries skipped", skipped) }
        lines.append(matches ? "the app behaves as recorded" : "the app diverges from the recording")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Holds the requests of a recorded burst until all of them have been sent, or a moment has
/// passed: the capture shows them in flight together, so the replay lets none be answered
/// before the others have left (a naive SDK's second refresh then carries the same token, as
/// in the field). An SDK that sends fewer (single flight) waits out the moment and goes on.
///
/// Then the burst's answers are given one call at a time, in the order the capture holds them:
/// the next waiting request is let through when the call that got the previous answer has
/// finished (`finished(slot:)`), or a moment has passed. So the app handles the issuer's
/// answers in one order on every run, the order of the field (the winner's tokens stored
/// first, then the refusal that ends the session), rather than in whichever order threads
/// happen to run.
final class BurstGate: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    /// How long a request of an incomplete burst waits for the others, and how long a held
    /// answer waits for the previous call to finish.
    static let patience = Duration.milliseconds(500)

    /// The call of the burst a request belongs to (set around each call of a burst).
    @TaskLocal static var slot: Int?

    private struct Waiter {
        var slot: Int?
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var expected = 0
        var arrived: [Waiter] = []
        /// Arrived requests let through one at a time.
        var queue: [Waiter] = []
        /// The call whose request was let through last; its end lets the next one go.
        var current: Int?
        /// Bumped whenever a request is let through, so that a stale patience timer does nothing.
        var generation = 0
    }

    private let state = Mutex(State())

    init(inner: any HTTPTransport) {
        self.inner = inner
    }

    /// The next `count` requests form a burst.
    func expect(_ count: Int) {
        let released = state.withLock { state -> [Waiter] in
            defer {
                state = State(expected: count, generation: state.generation + 1)
            }
            return state.arrived + state.queue
        }
        for waiter in released { waiter.continuation.resume() }
    }

    /// The burst's call `slot` has finished: the next held request goes.
    func finished(slot: Int) {
        let (next, timer) = state.withLock { state -> (Waiter?, Int?) in
            guard state.current == slot else { return (nil, nil) }
            return Self.letNextThrough(&state)
        }
        next?.continuation.resume()
        if let generation = timer { watch(generation) }
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let slot = Self.slot
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (go, timer): (Waiter?, Int?) = state.withLock { state in
                let waiter = Waiter(slot: slot, continuation: continuation)
                // Not part of a held burst (a lone call, or a call already let through making
                // its next request): straight on.
                guard state.expected > 1, slot != nil, slot != state.current,
                    !state.queue.contains(where: { $0.slot == slot })
                else { return (waiter, nil) }
                state.arrived.append(waiter)
                guard state.arrived.count >= state.expected else {
                    return (nil, state.arrived.count == 1 ? state.generation : nil)
                }
                // Everyone has sent: answer them one at a time.
                state.queue = state.arrived
                state.arrived = []
                state.expected = 0
                return Self.letNextThrough(&state)
            }
            go?.continuation.resume()
            if let generation = timer { watch(generation) }
        }
        return try await inner.send(request)
    }

    /// Takes the next queued request to let through, and the generation to watch when more
    /// are still held.
    private static func letNextThrough(_ state: inout State) -> (Waiter?, Int?) {
        guard !state.queue.isEmpty else {
            state.current = nil
            return (nil, nil)
        }
        let next = state.queue.removeFirst()
        state.current = next.slot
        state.generation += 1
        return (next, state.queue.isEmpty ? nil : state.generation)
    }

    /// After a moment without progress, lets everything held go: a burst that never completes
    /// (an SDK that sends fewer requests) or a call that never finishes must not hang the replay.
    private func watch(_ generation: Int) {
        Task {
            try? await Task.sleep(for: Self.patience)
            let released = self.state.withLock { state -> [Waiter] in
                guard state.generation == generation else { return [] }
                defer {
                    state.arrived = []
                    state.queue = []
                    state.expected = 0
                    state.current = nil
                    state.generation += 1
                }
                return state.arrived + state.queue
            }
            for waiter in released { waiter.continuation.resume() }
        }
    }
}
