import Cryptography
import Device
import HTTPCore
import JOSE
import JSON
import OAuthCore
import Recordings
import Scenario
import SignInSDK

/// Reads what the app and the person did from a capture's traffic, as scenario steps.
///
/// - The app's first discovery request is the launch; a later one a relaunch (`terminate`,
///   `launch`): an SDK reads discovery once per process.
/// - Each web sign-in (`CaptureAnalysis.SignInFlow`) is a `signIn` with what the person typed
///   (each login attempt: the first as `username`/`password`, the others as `retry`), whether
///   they denied consent, and the request's `prompt` and `scope`.
/// - Each refresh is a forced `getAccessToken`; refreshes in flight together with one refresh
///   token (a race) are a `parallel` block; a stale refresh refused and retried at once with
///   the newer token (`ClientBehavior.staleRetries`) is one call.
/// - A callback whose code the app never redeemed for a cause the capture does not show
///   (`CaptureAnalysis.CallbackRefusal.causeNotShown`) is taken for a state the app did not
///   store: the replay serves it with the recorded `state`.
/// - Userinfo, sign-out (the end-session request) and the native Apple exchange are their
///   SDK calls.
/// - Time between them is an `advance` of whole seconds.
///
/// The client is the one the requests name: its id, redirect URI, scopes, secret (and how it
/// was sent), the login form's field names, DPoP when its token requests carry proofs, a
/// shared browser session when a sign-in's first page already carried the issuer's cookies.
struct StoryInference {
    let analysis: CaptureAnalysis
    let file: String
    let profile: BehaviorProfile

    /// One thing the app did, at a moment, with the exchanges it stands for.
    private struct Event {
        var time: Int64
        var action: StepAction
        var name: String
        var entries: [Int]
    }

    /// The story, inferred phase by phase: the web sign-ins and sign-outs, then the other calls
    /// read along the timeline, put in order (with a launch first when the capture shows none),
    /// then as steps with the time between them, with what the replay must know besides.
    func story() -> ReplayStory {
        var used = Set<Int>()
        var events = flowEvents(used: &used)
        var timeline = TimelineReading(inference: self, retries: ClientBehavior.staleRetries(analysis))
        for index in analysis.timeline where !used.contains(index) {
            timeline.read(index)
        }
        timeline.finish()
        events += timeline.events
        var notes = timeline.notes
        events.sort { ($0.time, $0.entries.first ?? -1) < ($1.time, $1.entries.first ?? -1) }
        let startingSession = startingSession(events)
        if startingSession != nil {
            notes.append(
                "the capture begins with the app signed in: the replayed app starts with a stored session "
                    + "holding the refresh token the first refresh presents")
        }
        if !timeline.launched {
            events.insert(
                Event(
                    time: events.first?.time ?? 0, action: .app(.launch(.userTap), app: nil), name: "launch",
                    entries: []),
                at: 0)
            notes.append("the capture has no discovery request by the app: the replay launches it first")
        }
        let start = ReplayStory.firstMoment(analysis)
        let (steps, stepEntries) = steps(events, from: start)
        var story = ReplayStory(
            source: .inferred, scenario: scenario(steps), issuerURL: "", appleURL: nil,
            epochSeconds: start / 1000)
        story.stepEntries = stepEntries
        story.notes = notes
        story.startingSession = startingSession
        keepRecordedState(in: &story)
        return story
    }

    /// The web sign-ins and the sign-outs, each with the exchanges it stands for, which are
    /// added to `used`.
    private func flowEvents(used: inout Set<Int>) -> [Event] {
        let exchanges = analysis.capture.exchanges
        var events: [Event] = []
        for flow in analysis.signIns {
            var entries = flow.exchanges
            if let exchange = flow.codeExchange { entries.append(exchange) }
            used.formUnion(entries)
            events.append(
                Event(
                    time: exchanges[flow.authorization].startedAtMilliseconds,
                    action: .sdk(signInCall(flow), app: nil, expectedOutcomes: nil), name: "signIn",
                    entries: entries))
        }
        for flow in analysis.signOuts {
            used.formUnion(flow.exchanges)
            events.append(
                Event(
                    time: exchanges[flow.exchanges[0]].startedAtMilliseconds,
                    action: .sdk(.signOut(callEndSession: true), app: nil, expectedOutcomes: nil),
                    name: "signOut",
                    entries: flow.exchanges))
        }
        return events
    }

    /// The events as steps, with the time between them as advances of whole seconds from
    /// `start` (in milliseconds); and each step's entries, by its number from 1.
    private func steps(_ events: [Event], from start: Int64) -> (steps: [Step], entries: [Int: [Int]]) {
        var clock = start - start % 1000
        var steps: [Step] = []
        var stepEntries: [Int: [Int]] = [:]
        for event in events {
            let gap = (event.time - clock) / 1000
            if gap >= 1 {
                steps.append(
                    Step(
                        .world(.advance(seconds: gap)), name: "advance",
                        location: location(event.entries.first)))
                clock += gap * 1000
            }
            steps.append(Step(event.action, name: event.name, location: location(event.entries.first)))
            stepEntries[steps.count] = event.entries
        }
        return (steps, stepEntries)
    }

    /// The scenario of the replay: the inferred app and device, and the steps.
    private func scenario(_ steps: [Step]) -> Scenario {
        var scenario = Scenario(
            name: "Replay of \(file)", description: "Read from the traffic of \(file).",
            location: SourceLocation(file: file, line: 1, column: 1))
        scenario.apps = [app()]
        scenario.device = device()
        scenario.steps = steps
        return scenario
    }

    /// Each callback whose code the app never redeemed for a cause the capture does not show:
    /// the replay hands the app the recorded state, and the story says so.
    private func keepRecordedState(in story: inout ReplayStory) {
        for flow in analysis.signIns where analysis.callbackRefusal(flow) == .causeNotShown {
            guard let callback = flow.callback else { continue }
            story.callbacksKeepingRecordedState.insert(callback.exchange)
            story.notes.append(
                "entry \(analysis.capture.entryNumber(of: callback.exchange)): the app never exchanged the "
                    + "callback's code, although its state is the one its sheet sent and it carries no "
                    + "error; the cause assumed is a state the app did not store (state_mismatch), so the "
                    + "replay hands the app the recorded state")
        }
    }

    /// The calls read along the timeline from the exchanges no sign-in or sign-out took:
    /// refreshes (races as parallel blocks), the native Apple exchange, credential-state
    /// questions, userinfo, and launches (a later discovery read is a relaunch).
    private struct TimelineReading {
        let inference: StoryInference
        /// Stale refreshes retried at once with the newer token, with the refused one's index.
        let retries: [Int: Int]
        private(set) var events: [Event] = []
        private(set) var notes: [String] = []
        private(set) var launched = false
        /// Apple authorization exchanges not yet followed by the token exchange.
        private var pendingApple: [Int] = []
        /// Refreshes in flight together with one refresh token, not yet an event.
        private var race: Race?

        private struct Race {
            var token: String
            /// When the last refresh in it ended, in milliseconds.
            var end: Double
            var entries: [Int]
            var retries: [Int]
        }

        init(inference: StoryInference, retries: [Int: Int]) {
            self.inference = inference
            self.retries = retries
        }

        /// Reads one exchange into the events.
        mutating func read(_ index: Int) {
            let analysis = inference.analysis
            let exchange = analysis.capture.exchanges[index]
            let entry = analysis.entries[index]
            switch (entry.role, entry.grant) {
            case (.token, GrantType.refreshToken?):
                readRefresh(index)
            case (.token, GrantType.tokenExchange?):
                flushRace()
                append(
                    .signInWithApple(AppleSignInArguments()), name: "signInWithApple",
                    at: exchange.startedAtMilliseconds, entries: pendingApple + [index])
                pendingApple = []
            case (.appleAuthorization, _) where StoryInference.isCredentialStateCheck(exchange):
                // The device asking Apple for the credential state: the app's `getCredentialState`.
                flushRace()
                append(
                    .getCredentialState(expected: nil), name: "getCredentialState",
                    at: exchange.startedAtMilliseconds, entries: [index])
            case (.appleAuthorization, _):
                pendingApple.append(index)
            case (.userinfo, _) where entry.sender == .app:
                flushRace()
                append(.userInfo, name: "userInfo", at: exchange.startedAtMilliseconds, entries: [index])
            case (.discovery, _) where entry.sender == .app:
                flushRace()
                readLaunch(index)
            default:
                break
            }
        }

        /// Ends the reading: the race still open, and an Apple sheet that never reached the
        /// issuer (the person cancelled, or the app gave up before exchanging).
        mutating func finish() {
            flushRace()
            if !pendingApple.isEmpty {
                append(
                    .signInWithApple(AppleSignInArguments()), name: "signInWithApple",
                    at: inference.analysis.capture.exchanges[pendingApple[0]].startedAtMilliseconds,
                    entries: pendingApple)
            }
        }

        /// A refresh: the retry of a stale one in the race, another in flight with the race's
        /// token, or the start of a new race.
        private mutating func readRefresh(_ index: Int) {
            let exchange = inference.analysis.capture.exchanges[index]
            let start = Double(exchange.startedAtMilliseconds)
            let token = CaptureAnalysis.form(exchange)["refresh_token"] ?? ""
            if var pending = race, let refused = retries[index], pending.entries.contains(refused) {
                pending.retries.append(index)
                race = pending
            } else if var pending = race, pending.token == token, start < pending.end {
                pending.entries.append(index)
                pending.end = max(pending.end, start + max(exchange.timeMilliseconds, 1))
                race = pending
            } else {
                flushRace()
                race = Race(
                    token: token, end: start + max(exchange.timeMilliseconds, 1), entries: [index],
                    retries: [])
            }
        }

        /// The app reading discovery: its launch, or (after the first) a relaunch.
        private mutating func readLaunch(_ index: Int) {
            let analysis = inference.analysis
            let time = analysis.capture.exchanges[index].startedAtMilliseconds
            if launched {
                notes.append(
                    "entry \(analysis.capture.entryNumber(of: index)): the app read discovery again, "
                        + "taken as a relaunch (terminate, launch)")
                events.append(
                    Event(time: time, action: .app(.terminate, app: nil), name: "terminate", entries: []))
            }
            launched = true
            events.append(
                Event(time: time, action: .app(.launch(.userTap), app: nil), name: "launch", entries: [index])
            )
        }

        /// The open race as an event: one forced `getAccessToken`, or a `parallel` block of them.
        private mutating func flushRace() {
            guard let pending = race else { return }
            race = nil
            let call = Step(
                .sdk(.getAccessToken(forceRefresh: true), app: nil, expectedOutcomes: nil),
                name: "getAccessToken",
                location: inference.location(pending.entries[0]))
            let action: StepAction =
                pending.entries.count == 1
                ? call.action : .flow(.parallel(Array(repeating: call, count: pending.entries.count)))
            events.append(
                Event(
                    time: inference.analysis.capture.exchanges[pending.entries[0]].startedAtMilliseconds,
                    action: action, name: pending.entries.count == 1 ? "getAccessToken" : "parallel",
                    entries: pending.entries + pending.retries))
        }

        private mutating func append(_ call: SDKCall, name: String, at time: Int64, entries: [Int]) {
            events.append(
                Event(
                    time: time, action: .sdk(call, app: nil, expectedOutcomes: nil), name: name,
                    entries: entries))
        }
    }

    /// Whether an exchange with the simulated Apple is a credential-state question
    /// (`GET …/_admin/credential-state`), not part of an authorization.
    static func isCredentialStateCheck(_ exchange: RecordedExchange) -> Bool {
        exchange.method == "GET"
            && URLParts.path(of: exchange.url).hasSuffix("/_admin/credential-state")
    }

    /// The session an app holds when the capture begins, if it begins mid-session: a call
    /// that needs one (a refresh, userinfo, sign-out) comes before any sign-in. It holds the
    /// refresh token the first refresh presents, the access token the first bearer request
    /// carries (expired at the first refresh, so that the app refreshes there as it did), and,
    /// for the ID token, the first one the capture holds (the one the app had is not in it);
    /// the SDK stores it as credentials obtained elsewhere, unverified.
    private func startingSession(_ events: [Event]) -> Session? {
        let signsIn: Set<String> = ["signIn", "signInWithApple"]
        let needsSession: Set<String> = ["getAccessToken", "parallel", "userInfo", "signOut"]
        guard
            let first = events.first(where: { signsIn.contains($0.name) || needsSession.contains($0.name) }),
            needsSession.contains(first.name)
        else { return nil }
        let exchanges = analysis.capture.exchanges
        let firstSignIn = events.first { signsIn.contains($0.name) }?.time ?? Int64.max
        var refreshToken: String?
        var refreshAt: Int64?
        var accessToken: String?
        var idToken: String?
        var scope: String?
        for index in analysis.timeline where exchanges[index].startedAtMilliseconds < firstSignIn {
            let exchange = exchanges[index]
            let entry = analysis.entries[index]
            guard entry.sender == .app else { continue }
            if entry.role == .token, entry.grant == GrantType.refreshToken, refreshToken == nil {
                let form = CaptureAnalysis.form(exchange)
                refreshToken = form["refresh_token"]
                refreshAt = exchange.startedAtMilliseconds / 1000
                scope = form["scope"]
            }
            if accessToken == nil, refreshToken == nil,
                let header = exchange.requestHeaders.first(where: { $0.name.lowercased() == "authorization" }
                ),
                header.value.lowercased().hasPrefix("bearer ")
            {
                accessToken = String(header.value.dropFirst("bearer ".count))
            }
            if idToken == nil, entry.role == .token, exchange.status == 200,
                let body = try? JSONValue.parseObject(exchange.responseBody)
            {
                idToken = body["id_token"]?.stringValue
                if scope == nil { scope = body["scope"]?.stringValue }
            }
        }
        guard refreshToken != nil || accessToken != nil else { return nil }
        let app = app()
        var claims = JWTClaims(issuer: analysis.issuer, audience: .single(app.clientID))
        if let idToken, let payload = try? JWS.parse(idToken).payloadObject(),
            let recorded = try? JWTClaims(json: payload)
        {
            claims = recorded
        }
        let start = ReplayStory.firstMoment(analysis) / 1000
        return Session(
            accessToken: accessToken ?? "access token of the session the capture began with",
            tokenType: "Bearer", idToken: idToken ?? "", refreshToken: refreshToken,
            expiresAt: refreshAt ?? (start + 3600), scope: scope ?? app.scopes.joined(separator: " "),
            claims: claims)
    }

    /// Where a step came from: the entry it stands for (line = entry number, from 1).
    private func location(_ entry: Int?) -> SourceLocation {
        SourceLocation(file: file, line: entry.map(analysis.capture.entryNumber(of:)) ?? 1, column: 1)
    }

    /// The web sign-in as the person went through it.
    private func signInCall(_ flow: CaptureAnalysis.SignInFlow) -> SDKCall {
        var user = WebUserSetup()
        if let first = flow.loginAttempts.first {
            if let field = first.usernameField, let value = first.fields[field] { user.username = value }
            if let field = first.passwordField, let value = first.fields[field] { user.password = value }
            for pair in first.fields
            where pair.name != first.usernameField && pair.name != first.passwordField {
                user.fields.append(FieldValue(pair.name, pair.value))
            }
            for attempt in flow.loginAttempts.dropFirst() {
                user.retries.append(
                    LoginAttempt(
                        username: attempt.usernameField.flatMap { attempt.fields[$0] },
                        password: attempt.passwordField.flatMap { attempt.fields[$0] }))
            }
        }
        if flow.consent?.approved == false { user.consent = .deny }
        let app = app()
        let scopes = flow.scopes.flatMap { $0 == app.scopes ? nil : $0 }
        // The app's prompt is its first sign-in's; another sign-in's is the step's own.
        let prompt = Self.promptSetting(flow)
        return .signIn(SignInArguments(user, prompt: prompt == app.prompt ? nil : prompt, scopes: scopes))
    }

    /// A sign-in's `prompt` as a setting: the values sent, or `omit`.
    static func promptSetting(_ flow: CaptureAnalysis.SignInFlow) -> String {
        flow.prompt.flatMap { $0.isEmpty ? nil : $0 } ?? SignInOptions.Prompt.omitKeyword
    }

    /// An app's `prompt` from its sign-ins: `omit` when one of them sent none (the recorded
    /// SDK adds no prompt of its own), else the first one's; nil without sign-ins. Sign-ins
    /// that sent another prompt say so in their steps.
    static func appPrompt(_ flows: [CaptureAnalysis.SignInFlow]) -> String? {
        guard let first = flows.first else { return nil }
        if flows.contains(where: { promptSetting($0) == SignInOptions.Prompt.omitKeyword }) {
            return SignInOptions.Prompt.omitKeyword
        }
        return promptSetting(first)
    }

    /// The private key a replayed `private_key_jwt` app signs with (P-256, from a fixed seed,
    /// so that every replay and derivation of a capture names the same key).
    static let standInClientKey: JSONValue = {
        guard let key = try? P256PrivateKey(random: SeededRandom(seed: 7523)) else { return .null }
        return JWK(key, keyID: "replay-stand-in").json
    }()

    /// The app: the capture's first client, as its requests show it.
    func app() -> AppSetup {
        let exchanges = analysis.capture.exchanges
        let clientID = analysis.clientIDs.first ?? "com.example.app"
        let flow = analysis.signIns.first { $0.clientID == clientID } ?? analysis.signIns.first
        var app = AppSetup(
            bundleID: clientID, clientID: clientID,
            redirectURI: flow?.redirectURI ?? analysis.redirectURIs.first ?? "\(clientID)://callback",
            scopes: flow?.scopes ?? AppSetup().scopes, profile: profile)
        if let attempt = analysis.signIns.lazy.flatMap(\.loginAttempts).first {
            if let field = attempt.usernameField { app.usernameField = field }
            if let field = attempt.passwordField { app.passwordField = field }
        }
        for (index, entry) in analysis.entries.enumerated() where entry.role == .token && entry.sender == .app
        {
            let exchange = exchanges[index]
            if exchange.requestHeaders.contains(where: { $0.name.lowercased() == "dpop" }) {
                app.usesDPoP = true
            }
            if app.clientSecret == nil, app.clientKey == nil {
                let form = CaptureAnalysis.form(exchange)
                if form["client_assertion"] != nil, form["client_assertion_type"] == ClientAssertion.type {
                    // The capture holds the assertions, not the key that signed them: the replayed
                    // app signs with a stand-in key, which a derived tenant registers.
                    app.clientAuthentication = .privateKeyJWT
                    app.clientKey = .jwk(Self.standInClientKey)
                } else if let secret = form["client_secret"] {
                    app.clientSecret = secret
                    app.clientAuthentication = .post
                } else if let header = exchange.requestHeaders.first(where: {
                    $0.name.lowercased() == "authorization"
                }) {
                    switch BasicCredentials.read(header.value) {
                    case .credentials(_, let secret), .notFormEncoded(let secret), .malformed(let secret):
                        app.clientSecret = secret
                        app.clientAuthentication = .basic
                    case .otherScheme:
                        break
                    }
                }
            }
        }
        if let uri = analysis.signOuts.compactMap(\.postLogoutRedirectURI).first {
            app.postLogoutRedirectURI = uri
        }
        // What the app sent as prompt, `omit` when nothing: the SDK's own rule must not add a
        // prompt the recorded app did not send.
        app.prompt = Self.appPrompt(analysis.signIns.filter { $0.clientID == clientID })
        // A sign-in whose first page already carried the issuer's cookies ran in the browser's
        // shared jar (`prefersEphemeralWebBrowserSession = false`).
        app.sharedSession = analysis.signIns.contains { flow in
            exchanges[flow.authorization].requestHeaders.contains { $0.name.lowercased() == "cookie" }
        }
        return app
    }

    /// The device: the Apple ID the Apple sheet answered with, when there is one.
    private func device() -> DeviceSetup {
        var device = DeviceSetup()
        for (index, entry) in analysis.entries.enumerated() where entry.role == .appleAuthorization {
            let exchange = analysis.capture.exchanges[index]
            guard let request = try? JSONValue.parseObject(exchange.requestBody),
                let email = request["email"]?.stringValue
            else { continue }
            var account = AppleAccountSetup(email: email)
            account.givenName = request["given_name"]?.stringValue
            account.familyName = request["family_name"]?.stringValue
            account.privateRelay = request["private_email"]?.boolValue ?? false
            device.appleAccount = account
            break
        }
        return device
    }
}
