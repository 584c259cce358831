import AppleID
import Clocks
import Device
import Foundation
import HTTPCore
import Issuer
import JSON
import Locking
import OAuthCore
import Scenario
import SignInSDK
import Simulator
import WebAuthSession
import WorldVocabulary

/// Why a step stopped the scenario.
struct StepStop: Error {
    var failure: StepFailure
}

/// Runs one scenario's steps in its world, recording each step.
final class ScenarioExecution: Sendable {
    let world: ScenarioWorld
    /// The error code of the last SDK call (nil: it succeeded), shared by parallel steps.
    private let lastError = Mutex<SignInError.Code?>(nil)
    /// The id of the last SDK call a replay made.
    private let nextCall = Mutex<UInt64>(0)
    /// Apps whose starting session (a replay of a capture that begins mid-session) is stored.
    private let restoredApps = Mutex<Set<String>>([])
    /// Each app's last sign-out (by bundle id), for `expect: {signed_out_at_issuer: …}`.
    private let signOuts = Mutex<[String: SignOutRecord]>([:])
    /// Top-level steps finished so far and the one running, for a report cut short.
    /// Top-level steps finished so far, the one running, and the first failure inside a
    /// `parallel` block still running, for a report cut short.
    private let progress = Mutex<(records: [StepRecord], current: Step?, branchFailure: StepFailure?)>(
        ([], nil, nil))

    /// The top-level steps begun so far (`runFlow` includes inlined), with when each began on
    /// the monotonic clock and in world time, and its record once it ended: the HAR's pages.
    private let pageMarks = Mutex<[PageMark]>([])

    struct PageMark {
        var step: Step
        var began: ContinuousClock.Instant
        var worldMilliseconds: Int64
        var record: StepRecord?
    }

    /// The pages so far: one per top-level step begun, numbered from 1.
    func recordedSteps() -> [RecordedStep] {
        pageMarks.withLock { marks in
            marks.enumerated().map { index, mark in
                RecordedStep(
                    number: index + 1, step: mark.step, startedAtMilliseconds: mark.worldMilliseconds,
                    record: mark.record
                        ?? StepRecord(
                            step: mark.step.name, location: mark.step.location, outcome: .skipped,
                            note: "interrupted"))
            }
        }
    }

    /// When each page began, for assigning exchanges to pages.
    func pageStarts() -> [(id: String, began: ContinuousClock.Instant)] {
        pageMarks.withLock { marks in marks.enumerated().map { ("step-\($0.offset + 1)", $0.element.began) } }
    }

    func completedRecords() -> [StepRecord] { progress.withLock { $0.records } }
    func currentStep() -> Step? { progress.withLock { $0.current } }
    /// A branch of a running `parallel` block that failed while another kept it open.
    func pendingBranchFailure() -> StepFailure? { progress.withLock { $0.branchFailure } }

    init(world: ScenarioWorld) {
        self.world = world
    }

    /// Runs the scenario's steps, keeping progress for a report cut short.
    func runScenario(_ steps: [Step]) async -> (records: [StepRecord], failure: StepFailure?) {
        await run(steps, tracking: true, pages: true)
    }

    /// Runs steps in order; the first failure stops them, and the rest are recorded as skipped.
    /// With `pages`, each step (each step of an include) is a page of the run's recording.
    func run(_ steps: [Step], tracking: Bool = false, pages: Bool = false) async
        -> (records: [StepRecord], failure: StepFailure?)
    {
        var records: [StepRecord] = []
        var failure: StepFailure?
        for step in steps {
            if failure != nil || Task.isCancelled {
                records.append(
                    StepRecord(
                        step: step.name, location: step.location, outcome: .skipped,
                        note: failure != nil ? "an earlier step failed" : "interrupted"))
                continue
            }
            if tracking { progress.withLock { $0.current = step } }
            let (record, stop) = await run(step, pages: pages)
            records.append(record)
            if tracking { progress.withLock { $0.records.append(record) } }
            failure = stop
        }
        return (records, failure)
    }

    private func run(_ step: Step, pages: Bool = false) async -> (StepRecord, StepFailure?) {
        let started = ContinuousClock.now
        var page: Int?
        if pages, !step.isInclude {
            let scheduler = world.world.scheduler
            let mark = PageMark(
                step: step, began: started,
                worldMilliseconds: scheduler.epochSeconds * 1000 + scheduler.now.milliseconds)
            page = pageMarks.withLock { marks in
                marks.append(mark)
                return marks.count - 1
            }
        }
        let (record, stop) = await runUnmarked(step, pages: pages)
        if let page { pageMarks.withLock { $0[page].record = record } }
        return (record, stop)
    }

    private func runUnmarked(_ step: Step, pages: Bool) async -> (StepRecord, StepFailure?) {
        let started = ContinuousClock.now
        var record = StepRecord(step: step.name, location: step.location, outcome: .passed)
        var stop: StepFailure?
        let sheetMarks = world.apps.mapValues(\.sheetCount)
        do {
            switch step.action {
            case .flow(.parallel(let steps)):
                let results = await withTaskGroup(of: (Int, StepRecord, StepFailure?).self) { group in
                    for (index, inner) in steps.enumerated() {
                        group.addTask {
                            let (record, stop) = await self.run(inner)
                            if let stop {
                                self.progress.withLock { $0.branchFailure = $0.branchFailure ?? stop }
                            }
                            return (index, record, stop)
                        }
                    }
                    var collected: [(Int, StepRecord, StepFailure?)] = []
                    for await result in group { collected.append(result) }
                    return collected.sorted { $0.0 < $1.0 }
                }
                record.children = results.map(\.1)
                stop = results.compactMap(\.2).first
            case .flow(.include(_, let steps)):
                let (records, failure) = await run(steps, pages: pages)
                record.children = records
                stop = failure
            default:
                record.note = try await perform(step, callOutcome: &record.callOutcome)
            }
        } catch let skip as StepSkip {
            record.outcome = .skipped
            record.note = skip.reason
        } catch let halt as StepStop {
            stop = halt.failure
        } catch {
            stop = StepFailure(step: step.name, location: step.location, message: "\(error)")
        }
        if stop != nil { record.outcome = .failed }
        if record.children.isEmpty { record.sheetPages = sheetPages(since: sheetMarks) }
        record.durationMilliseconds = milliseconds(since: started)
        return (record, stop)
    }

    /// The pages of the sheets presented since `marks` (per app), for the step's record.
    private func sheetPages(since marks: [String: Int]) -> [SheetPage] {
        var pages: [SheetPage] = []
        for (id, app) in world.apps.sorted(by: { $0.key < $1.key }) {
            for sheet in app.sheets(since: marks[id] ?? 0) {
                for visit in sheet.trace {
                    pages.append(
                        SheetPage(
                            app: id, engine: sheet.engine, method: visit.method.rawValue,
                            url: URLParts.stripQueryAndFragment(visit.url), status: visit.status,
                            title: visit.title,
                            action: visit.action.description, failed: visit.action.isFailure,
                            isRedirect: visit.action.isRedirect, rules: visit.rules,
                            screenshot: visit.screenshot))
                }
            }
        }
        return pages
    }

    /// Performs a world step: moves time, changes the network, Apple or the issuer.
    private func perform(_ change: WorldChange, step: Step) async throws -> String? {
        switch change {
        case .advance(let seconds):
            // A real issuer keeps its own time: moving only the phone's would put its clock hours
            // ahead of the issuer's (the `skew` step's job), and every token it then receives
            // would look expired.
            guard world.ownsIssuerClock else {
                throw StepSkip(reason: "needs the embedded issuer's clock: a real issuer keeps its own time")
            }
            // Checked: advances add up, and a world pushed past the year 9999 fails this step
            // instead of overflowing the scheduler's time.
            try world.world.clock.checkedAdvance(by: seconds)
            // Work woken by the advance (latency sleeps, deadlines) gets to run.
            await Task.yield()
            return nil
        case .skew(let seconds):
            world.phone.device.clock.setSkew(seconds)
            return nil
        case .appleRevokeConsent(let id):
            let app = world.app(id)
            if world.replay == nil {
                let (apple, account) = try embeddedApple(step)
                guard apple.stopUsingAppleID(email: account.email, bundleID: app.bundleID) else {
                    return "\(account.email) had not authorized \(app.bundleID): nothing to stop"
                }
            }
            return await notifyRevocation(app)
        case .appleCredential(let change, let id):
            return try await appleCredential(change, app: world.app(id), step: step)
        case .network(let change):
            if world.replay != nil {
                throw StepSkip(reason: "the capture holds what the network did to each request")
            }
            applyNetwork(change)
            return nil
        case .appleAccount(let account):
            world.phone.appleAccount = account.map(ScenarioWorld.appleIDAccount)
            return nil
        case .issuer(let action):
            if case .clock(let move) = action, world.ownsIssuerClock {
                // The world's clock is the embedded issuer's, or in a replay the capture's. Work
                // woken by the move (latency sleeps, deadlines) gets to run, as after advance.
                try moveWorldClock(move, step: step)
                await Task.yield()
                return nil
            }
            if world.replay != nil { throw StepSkip(reason: Self.replaySkipsIssuer) }
            try await issuerAction(action, step: step)
            return nil
        }
    }

    /// Performs one simple step; returns a note for the report, and an SDK call's outcome in
    /// `callOutcome`.
    private func perform(_ step: Step, callOutcome: inout CallOutcome?) async throws -> String? {
        switch step.action {
        case .app(let action, let id):
            let app = world.app(id)
            try await appAction(action, app: app)
            if case .launch = action,
                let session = world.replay?.startingSessions[app.bundleID],
                restoredApps.withLock({ $0.insert(app.bundleID).inserted })
            {
                try await app.perform { try await $0.restore(session) }
            }
            if case .launch = action {
                // The app's configure at launch is an SDK call: its outcome is what `expect:
                // {error: …}` sees next.
                let error = app.configureError
                lastError.withLock { $0 = error?.code }
                callOutcome = CallOutcome(error?.code)
                return error.map { "configure failed: \($0.code.rawValue): \($0.message)" }
            }
            return nil
        case .device(let action):
            switch action {
            case .reboot: try world.phone.reboot()
            case .lock: try world.phone.lock()
            case .unlock: try world.phone.unlock()
            }
            return nil
        case .world(let change):
            return try await perform(change, step: step)
        case .sdk(let call, let app, let expectedOutcomes):
            return try await sdk(
                call, app: app, expectedOutcomes: expectedOutcomes, step: step, callOutcome: &callOutcome)
        case .flow(.expect(let expectations)):
            if world.replay != nil {
                throw StepSkip(reason: "a replay compares requests and outcomes with the capture, not checks")
            }
            let checker = ExpectationChecker(
                world: world, lastError: lastError.withLock { $0 }, signOuts: signOuts.withLock { $0 })
            var skipped: [String] = []
            var evidence: [String] = []
            for expectation in expectations {
                switch try await checker.check(expectation, step: step) {
                case .passed: break
                case .passedOn(let seen): evidence.append(seen)
                case .notChecked(let reason): skipped.append(reason)
                }
            }
            if !skipped.isEmpty, skipped.count == expectations.count {
                throw StepSkip(reason: skipped.joined(separator: "; "))
            }
            let notes =
                evidence + (skipped.isEmpty ? [] : ["not checked: " + skipped.joined(separator: "; ")])
            return notes.isEmpty ? nil : notes.joined(separator: "; ")
        case .flow(.wait(let condition)):
            do {
                try await wait(for: condition, step: step)
            } catch let stop as StepStop where world.replay != nil {
                // A replayed app that parts ways may never get there: say so and go on.
                return stop.failure.message
            }
            return nil
        case .flow(.parallel), .flow(.include):
            return nil
        }
    }

    static let replaySkipsIssuer = "in a replay the issuer's side is the capture"

    /// The team an `appleCredential: {state: transferred}` step without `team` moves the app to.
    static let transferTeam = "SIMTEAM002"

    /// The embedded world's simulated Apple and the phone's Apple ID, for steps that act at
    /// Apple: skipped without an embedded Apple, failed without an Apple ID.
    private func embeddedApple(_ step: Step) throws -> (AppleIDProvider, AppleIDAccount) {
        guard let apple = world.world.identity?.apple else {
            throw StepSkip(reason: "needs the embedded issuer's simulated Apple")
        }
        guard let account = world.phone.appleAccount else {
            throw StepStop(
                failure: StepFailure(
                    step: step.name, location: step.location, message: "no Apple ID is signed in on the phone"
                ))
        }
        return (apple, account)
    }

    /// The device posts Apple's revocation notification to the app. In a replay too: Apple's
    /// side is the capture, but what the notification does in the app is the app's.
    private func notifyRevocation(_ app: SimulatedApp) async -> String {
        let observed = await world.phone.postAppleCredentialRevoked(bundleID: app.bundleID)
        return observed
            ? "\(app.bundleID) was sent the revocation notification"
            : "\(app.bundleID) is not running: the revocation notification reached no one"
    }

    /// An `appleCredential` step: the state changes at Apple, and a revocation is posted to the
    /// app as the device does.
    private func appleCredential(_ change: AppleCredentialChange, app: SimulatedApp, step: Step) async throws
        -> String?
    {
        func stop(_ message: String) -> StepStop {
            StepStop(failure: StepFailure(step: step.name, location: step.location, message: message))
        }
        if world.replay != nil {
            switch change {
            case .revoked, .notFound: return await notifyRevocation(app)
            case .authorized, .transferred: throw StepSkip(reason: Self.replaySkipsIssuer)
            }
        }
        let (apple, account) = try embeddedApple(step)
        switch change {
        case .authorized:
            do {
                _ = try apple.authorize(AppleAuthorizationRequest(account: account, bundleID: app.bundleID))
            } catch {
                throw stop("Apple refused the authorization: \(error.message)")
            }
            return "\(account.email) authorized \(app.bundleID) elsewhere"
        case .revoked, .notFound:
            let ending: AppleAuthorizationEnding = change == .revoked ? .revoked : .notFound
            guard apple.endAuthorization(email: account.email, bundleID: app.bundleID, as: ending) else {
                throw stop(
                    "\(account.email) never authorized \(app.bundleID) with Apple: there is nothing to end")
            }
            return await notifyRevocation(app)
        case .transferred(let team):
            let target = team ?? Self.transferTeam
            if let current = apple.team(ofApp: app.bundleID), current == target {
                throw stop("\(app.bundleID) already belongs to team \(target); name another with team:")
            }
            let moved = apple.transferApp(bundleID: app.bundleID, toTeam: target)
            return "\(app.bundleID) moved to team \(target): \(moved) user(s) transferred"
        }
    }

    /// Longest a `wait` step waits, in real time.
    static let waitLimit = Duration.seconds(10)

    /// Waits until the condition holds, woken by the sheet's or the network's changes (no
    /// polling), at most `waitLimit`.
    private func wait(for condition: WaitCondition, step: Step) async throws {
        let holds: @Sendable () -> Bool
        let changes: ChangeSignal
        let description: String
        switch condition {
        case .sheet(let presented, let id):
            let app = world.app(id)
            holds = { app.isPresentingSheet == presented }
            changes = app.sheetChanges
            description = "the web sheet of \(app.bundleID) to be \(presented ? "presented" : "closed")"
        case .requests(let path, let count):
            let network = world.phone.device.network
            holds = { network.sentCount(path: path) >= count }
            changes = network.sent
            description = "\(count) request(s)\(path.map { " to \($0)" } ?? "")"
        }
        guard await changes.wait(until: holds, deadline: .now + Self.waitLimit) else {
            try Task.checkCancellation()
            throw StepStop(
                failure: StepFailure(
                    step: step.name, location: step.location,
                    message: "waited \(Self.waitLimit) for \(description)"))
        }
    }

    private func appAction(_ event: AppEvent, app: SimulatedApp) async throws {
        switch event {
        case .install:
            _ = try world.phone.install(app.configuration)
        case .launch(let kind):
            try await app.launch(kind)
        case .foreground: try app.foreground()
        case .resignActive: try app.resignActive()
        case .background: try app.background()
        case .terminate: try app.terminate()
        case .uninstall: try app.uninstall()
        case .reinstall: try app.reinstall()
        }
    }

    private func applyNetwork(_ change: NetworkChange) {
        let network = world.phone.device.network
        if change.reset { network.setConditions(.normal) }
        if let offline = change.offline { network.setOffline(offline) }
        if let latency = change.latencyMilliseconds { network.setLatency(.milliseconds(latency)) }
        if let portal = change.captivePortal { network.setCaptivePortal(portal ? CaptivePortal() : nil) }
        func match(_ armed: ArmedRequests) -> RequestMatch { RequestMatch(pathPrefix: armed.path) }
        if let armed = change.failNext { network.failNext(armed.count, matching: match(armed)) }
        if let armed = change.loseResponses {
            network.loseResponses(ofNext: armed.count, matching: match(armed))
        }
        if let armed = change.resendRequests { network.resend(next: armed.count, matching: match(armed)) }
        if let status = change.injectedStatus {
            let armed = change.injectedRequests ?? ArmedRequests()
            network.injectStatus(status, forNext: armed.count, matching: match(armed))
        }
    }

    /// An action on the embedded issuer, through its API in process (the same the admin API
    /// of `signinsim serve` maps onto).
    private func issuerAction(_ action: IssuerAction, step: Step) async throws {
        guard let issuer = world.world.identity?.issuer else {
            throw StepSkip(reason: "needs the embedded issuer: a real issuer has no control API")
        }
        do throws(OAuthError) {
            switch action {
            case .fault(let setup):
                try issuer.inject(
                    FaultInjection(
                        fault: setup.fault, count: setup.count, path: setup.path,
                        delayMilliseconds: setup.delayMilliseconds ?? FaultInjection.defaultDelayMilliseconds,
                        status: setup.status, error: setup.error, errorDescription: setup.errorDescription))
            case .clearFaults:
                issuer.clearFaults()
            case .rotateKeys(let algorithm):
                try issuer.rotateSigningKey(algorithm: algorithm)
            case .user(let update):
                issuer.storeUser(update)
            case .clock:
                break  // The world's clock, which the caller moves.
            }
        } catch {
            throw StepStop(
                failure: StepFailure(
                    step: step.name, location: step.location,
                    message: "the issuer refused: \(error.description)"))
        }
    }

    /// Moves the world's clock, which is the embedded issuer's (or, in a replay, the capture's).
    private func moveWorldClock(_ move: IssuerClockMove, step: Step) throws {
        let clock = world.world.clock
        do throws(ClockError) {
            switch move {
            case .advance(let seconds): try clock.checkedAdvance(by: seconds)
            case .offset(let seconds): try clock.checkedSetOffset(seconds)
            }
        } catch {
            throw StepStop(
                failure: StepFailure(
                    step: step.name, location: step.location,
                    message: "the clock cannot move: \(error.message)"))
        }
    }

    // MARK: SDK calls

    /// Makes an SDK call and judges its outcome against the step's: returns the report's note,
    /// sets `callOutcome` to what the call came to, and throws `StepStop` when the outcome is not
    /// one the scenario allows. A replay only records the outcome; its report compares.
    private func sdk(
        _ call: SDKCall, app id: String?, expectedOutcomes: [CallOutcome]?, step: Step,
        callOutcome: inout CallOutcome?
    ) async throws -> String? {
        let app = world.app(id)
        let sheetMark = app.sheetCount
        let outcome = await perform(call, app: app, setup: world.setup(id))
        let code = outcome.errorCode
        lastError.withLock { $0 = code }
        let finding = consentRefusalIgnored(call: call, outcome: outcome, app: app, since: sheetMark)
        callOutcome = finding.map { .finding($0.code) } ?? CallOutcome(code)
        if world.replay != nil {
            // A replay records what the app did and goes on; the report compares it with the
            // recording.
            switch outcome {
            case .success(let result): return result.note
            case .failure(let error): return "error \(error.code.rawValue): \(error.message)"
            }
        }
        try checkCredentialState(call: call, outcome: outcome, step: step)
        let allowed = expectedOutcomes ?? [.success]
        let expected =
            allowed.count == 1 ? allowed[0].name : "one of " + allowed.map(\.name).joined(separator: ", ")
        if let finding {
            guard allowed.contains(.finding(finding.code)) else {
                throw StepStop(
                    failure: StepFailure(
                        step: step.name, location: step.location, message: "\(step.name): \(finding)",
                        expected: expectedOutcomes == nil ? "success" : expected,
                        actual: finding.code.rawValue))
            }
            return "\(finding.code.rawValue), as expected: \(finding.message)"
        }
        guard allowed.contains(CallOutcome(code)) else {
            throw unexpectedOutcome(
                outcome, of: call, app: app, expected: expected, named: expectedOutcomes != nil, step: step)
        }
        switch outcome {
        case .success(let result): return result.note
        case .failure(let error): return "error \(error.code.rawValue), as expected: \(error.message)"
        }
    }

    /// Runs the call on the app; in a replay, under the next call id, so that the replayed
    /// network answers it as the recording did.
    private func perform(_ call: SDKCall, app: SimulatedApp, setup: AppSetup) async
        -> Result<CallResult, SignInError>
    {
        guard let replay = world.replay else {
            return await outcome(of: call, app: app, setup: setup)
        }
        let callID = nextCall.withLock { id in
            id += 1
            return id
        }
        let result = await ReplayCall.$current.withValue(callID) {
            await outcome(of: call, app: app, setup: setup)
        }
        replay.callFinished(callID)
        return result
    }

    /// The call's result, or the SDK error it threw.
    private func outcome(of call: SDKCall, app: SimulatedApp, setup: AppSetup) async
        -> Result<CallResult, SignInError>
    {
        do throws(SignInError) {
            return .success(try await invoke(call, app: app, setup: setup))
        } catch {
            return .failure(error)
        }
    }

    /// What the run saw that the SDK could not: a refusal in the sheet of a sign-in that ended
    /// in a session, read from the sheets shown since `sheetMark`. It is the step's outcome as
    /// the scenario names it, so that a recording carries it and a replay or an import repeats it.
    private func consentRefusalIgnored(
        call: SDKCall, outcome: Result<CallResult, SignInError>, app: SimulatedApp, since sheetMark: Int
    ) -> ConsentRefusalIgnored? {
        guard case .signIn = call, case .success = outcome else { return nil }
        return app.sheets(since: sheetMark).compactMap {
            ConsentRefusalIgnored(trace: $0.trace, engine: $0.engine)
        }
        .last
    }

    /// `getCredentialState` with an expected state: the state Apple gave must be it.
    private func checkCredentialState(call: SDKCall, outcome: Result<CallResult, SignInError>, step: Step)
        throws
    {
        guard case .getCredentialState(let expected?) = call, case .success(let result) = outcome,
            let state = result.appleState, state != expected
        else { return }
        throw StepStop(
            failure: StepFailure(
                step: step.name, location: step.location,
                message:
                    "Apple's credential state is \(state.rawValue), but the scenario expects \(expected.rawValue)",
                expected: expected.rawValue, actual: state.rawValue))
    }

    /// The failure of a call whose outcome the scenario does not allow; a failed sign-in lists
    /// the pages its web sheet went through. `named` says whether the step names its outcomes
    /// (otherwise success is what it expects).
    private func unexpectedOutcome(
        _ outcome: Result<CallResult, SignInError>, of call: SDKCall, app: SimulatedApp, expected: String,
        named: Bool, step: Step
    ) -> StepStop {
        switch outcome {
        case .success:
            return StepStop(
                failure: StepFailure(
                    step: step.name, location: step.location,
                    message: "\(step.name) succeeded, but the scenario expects error \(expected)",
                    expected: expected, actual: "success"))
        case .failure(let error):
            var message = "\(step.name) failed: \(error.code.rawValue): \(error.message)"
            let pages = app.lastWebTrace
            if case .signIn = call, !pages.isEmpty {
                message +=
                    " (pages: "
                    + pages.map {
                        "\($0.method.rawValue) \(URLParts.stripQueryAndFragment($0.url)) → \($0.status ?? 0)"
                    }
                    .joined(separator: ", ") + ")"
            }
            return StepStop(
                failure: StepFailure(
                    step: step.name, location: step.location, message: message,
                    expected: named ? expected : "success", actual: error.code.rawValue)
            )
        }
    }

    /// What an SDK call gave: a note for the report, and `getCredentialState`'s answer.
    private struct CallResult {
        var note: String?
        var appleState: AppleIDCredentialState?
    }

    /// Makes the SDK call on the app.
    private func invoke(_ call: SDKCall, app: SimulatedApp, setup: AppSetup) async throws(SignInError)
        -> CallResult
    {
        switch call {
        case .signIn(let arguments):
            app.webUser = webUserScript(arguments.user, setup: setup)
            var request = SignInRequestOptions()
            request.prompt = arguments.prompt.map(SignInOptions.Prompt.init(text:))
            request.scopes = arguments.scopes
            request.loginHint = arguments.loginHint
            request.maxAge = arguments.maxAge
            let options = request
            let session = try await app.perform { try await $0.signIn(options: options) }
            return CallResult(note: session.subject.map { "signed in as \($0)" })
        case .handleRedirect(let url):
            _ = try await app.perform { try await $0.handleRedirect(url: url) }
        case .getSession:
            let session = try await app.perform { try await $0.getSession() }
            return CallResult(note: session == nil ? "no session" : nil)
        case .getAccessToken(let force):
            _ = try await app.perform { try await $0.getAccessToken(forceRefresh: force) }
        case .renewSession:
            _ = try await app.perform { try await $0.renewSession() }
        case .signOut(let callEndSession):
            return try await signOut(app, callEndSession: callEndSession)
        case .signInWithApple(let arguments):
            app.cancelsAppleSheet = arguments.cancel
            let appleScopes = arguments.scopes ?? [.fullName, .email]
            let nonce = arguments.nonce
            let session = try await app.perform {
                try await $0.signInWithApple(scopes: appleScopes, nonce: nonce)
            }
            return CallResult(note: session.subject.map { "signed in as \($0)" })
        case .getCredentialState:
            let state = try await app.perform { try await $0.getCredentialState() }
            let note =
                "Apple's credential state: \(state.rawValue)" + (state.endsSession ? "; signed out" : "")
            return CallResult(note: note, appleState: state)
        case .userInfo:
            _ = try await app.perform { try await $0.userInfo() }
        case .configure:
            let options = app.configuration.options
            try await app.perform { try await $0.configure(options: options) }
        }
        return CallResult()
    }

    /// What the person does in the sign-in's web sheet: the app's login form filled with the
    /// user's credentials and fields, the clicks, and the credentials of each retry.
    private func webUserScript(_ user: WebUserSetup, setup: AppSetup) -> WebUserScript {
        var fields: FormParameters = [
            setup.usernameField: user.username, setup.passwordField: user.password,
        ]
        // A filled field replaces one of the same name (a password typed into the form), as
        // `signinsim sign-in --fill` does; a form never sends two values for one input. A key
        // that is a CSS selector or a label names an input the person cannot find alone.
        var overrides: [WebPageOverride] = []
        for field in user.fields {
            if WebElementTarget.isTarget(field.name) {
                overrides.append(.fill(WebElementTarget(field.name), value: field.value))
            } else {
                fields[field.name] = field.value
            }
        }
        overrides += user.clicks.map { .click(WebElementTarget($0)) }
        let retries = user.retries.map { attempt -> FormParameters in
            var changes = FormParameters()
            if let username = attempt.username { changes.append(setup.usernameField, username) }
            if let password = attempt.password { changes.append(setup.passwordField, password) }
            return changes
        }
        return WebUserScript(
            fields: fields, consent: user.consent, interruption: user.interruption,
            retries: retries, usernameField: setup.usernameField, passwordField: setup.passwordField,
            overrides: overrides)
    }

    /// Signs the app out, keeping the record for `signed_out_at_issuer`; the note says what the
    /// app saw of the issuer's sign-out.
    private func signOut(_ app: SimulatedApp, callEndSession: Bool) async throws(SignInError) -> CallResult {
        let record = try await app.signOut(callEndSession: callEndSession)
        signOuts.withLock { $0[app.bundleID] = record }
        switch record.outcome.endSession {
        case .notRequested: return CallResult(note: nil)
        case .acknowledged:
            // What the app saw; whether the issuer's session ended is for
            // `expect: {signed_out_at_issuer: …}` to prove.
            return CallResult(
                note: "acknowledged by the issuer (the post-logout redirect came back), not verified")
        case .unconfirmed(let why):
            return CallResult(note: "signed out locally; the issuer's sign-out is unconfirmed: \(why)")
        case .failed(let why):
            return CallResult(note: "signed out locally; the issuer's sign-out failed: \(why)")
        }
    }
}

extension Result where Failure == SignInError {
    /// The SDK error's code, or nil for a success.
    fileprivate var errorCode: SignInError.Code? {
        switch self {
        case .success: nil
        case .failure(let error): error.code
        }
    }
}

/// A step the target cannot perform, reported as skipped with the reason.
struct StepSkip: Error {
    var reason: String
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    (ContinuousClock.now - start).inMilliseconds
}
