import AppleID
import Foundation
import HTTPClient
import HTTPCore
import SignInSDK
import Simulator

/// A phone in `world` with the default app installed and launched, signed in through the web
/// flow as Alice: discovery and keys fetched and cached, a session in the keychain.
func signedInWebApp(in world: SimulationWorld) async throws -> SimulatedApp {
    let app = try world.addPhone().install(world.defaultAppConfiguration())
    try await app.launch()
    app.webUser = .signIn(username: "alice@example.com", password: "alice-password")
    _ = try await app.perform { try await $0.signIn() }
    return app
}

/// Full sign-ins on simulated phones against the embedded issuer over loopback, next to their
/// floor: one phone at a time (latency-bound), then `concurrency` phones at once (throughput,
/// against a floor measured with the same number of concurrent requests and `openssl speed
/// -multi` over every core).
///   - rows: the keys of the rows to run (`web`, `web-crowd`, `apple`, `apple-crowd`, and
///     `timeline`, one web flow step by step); all when nil.
///   - devices: phones kept alive for the memory figure; 0 skips it.
func benchClient(seconds: Double, devices: Int, concurrency: Int, rows selected: Set<String>? = nil)
    async throws
{
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print("openssl speed -seconds 1 ecdsap256 rsa2048, alone and with -multi \(cores) …")
    let rates = try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try runOpenSSLSpeed(seconds: 1) }) }
    }
    let allCoreRates = try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try runOpenSSLSpeed(seconds: 1, processes: cores) })
        }
    }
    let world = try await SimulationWorld.embedded(epoch: Int64(Date().timeIntervalSince1970))
    // The phones' tasks prefer the thread that drives the world's requests, as `signinsim run`
    // runs its scenarios: an SDK call and the request it makes need no hand-off between
    // threads, only the server's two.
    let phoneThread = world.curl.executor
    func onPhoneThread<T>(_ body: () async throws -> T) async rethrows -> T {
        try await InheritedExecutor.run(on: phoneThread, body)
    }

    // Each phone's app is launched once (discovery and keys fetched and cached, as an app does
    // at start); each flow is then a whole sign-in from a fresh ephemeral sheet to sign-out.
    var webApps: [SimulatedApp] = []
    var applePhones: [SimulatedPhone] = []
    var appleApps: [SimulatedApp] = []
    try await onPhoneThread {
        for index in 0..<concurrency {
            let webApp = try await signedInWebApp(in: world)
            try await webApp.perform { try await $0.signOut() }
            webApps.append(webApp)

            let applePhone = try world.addPhone()
            applePhone.appleAccount = AppleIDAccount(
                email: "bench\(index)@example.com", givenName: "Bench", familyName: "User")
            let appleApp = try applePhone.install(world.defaultAppConfiguration())
            try await appleApp.launch()
            _ = try await appleApp.perform { try await $0.signInWithApple() }
            applePhones.append(applePhone)
            appleApps.append(appleApp)
        }
    }
    let web = webApps
    let apple = appleApps
    // The issuer remembers a consent once granted, so every flow asks for it again
    // (`prompt=consent`): each sign-in goes through the login page and the consent page.
    let consentEachTime = SignInRequestOptions(prompt: "consent")
    @Sendable func webFlow(_ phone: Int) async throws {
        let app = web[phone]
        _ = try await app.perform { try await $0.signIn(options: consentEachTime) }
        _ = try await app.perform { try await $0.renewSession() }
        try await app.perform { try await $0.signOut() }
    }
    @Sendable func appleFlow(_ phone: Int) async throws {
        let app = apple[phone]
        _ = try await app.perform { try await $0.signInWithApple() }
        try await app.perform { try await $0.signOut(callEndSession: false) }
    }
    // Count one flow's requests from the device's network log, and keep them for the replay.
    _ = webApps[0].phone.device.network.drainLog()
    try await onPhoneThread { try await webFlow(0) }
    let webExchanges = webApps[0].phone.device.network.drainLog()
    let webRequests = webExchanges.count
    _ = applePhones[0].device.network.drainLog()
    try await onPhoneThread { try await appleFlow(0) }
    // Native authorization reaches the simulated Apple outside the app's network: one more.
    let appleRequests = applePhones[0].device.network.drainLog().count + 1
    // Web: the issuer signs access and ID tokens at the exchange and the refresh (4 ES256);
    // the app verifies both ID tokens, the issuer the id_token_hint at sign-out (3 verifies).
    let webFloor = FlowFloor(requests: Double(webRequests), ecSigns: 4, ecVerifies: 3)
    // Apple: the identity and Apple ID tokens (2 RS256 sign), the issuer checks Apple's token
    // (1 RS256 verify); the client secret and the issuer's two tokens (3 ES256 sign), Apple
    // checks the secret and the app the ID token (2 ES256 verify).
    let appleFloor = FlowFloor(
        requests: Double(appleRequests), ecSigns: 3, ecVerifies: 2, rsaSigns: 2, rsaVerifies: 1)

    // Rounds interleave the loopback floor with the flows, so that a noisy neighbour on the
    // machine weighs on both. The machine's speed drifts within a second (a trivial round trip
    // measured over successive 100 ms windows ranges from 120 to 300 µs), so the rounds are
    // short and many, and each row's rates pool all its rounds: flows over the time spent on
    // flows, requests over the time spent on the floor loop.
    let rounds = max(3, Int((seconds / 0.45).rounded()))
    let slice = seconds / Double(rounds)
    struct Row {
        let key: String
        let label: String
        let floor: FlowFloor
        let concurrency: Int
        let flow: @Sendable (Int) async throws -> Void
        /// Whether the row also replays its flow's requests through the libraries alone.
        var replays = false
        /// Flows, floor requests and replayed flows, and the time they took, over all rounds.
        var flows = Tally()
        var requests = Tally()
        var replayed = Tally()
        /// Each round's ratio, for the spread.
        var roundRatios: [Double] = []
        /// What each round's flows cost per flow, and its floor loop per request.
        var flowCosts: [UsageReading] = []
        var requestCosts: [UsageReading] = []
        var replayCosts: [UsageReading] = []
        /// CPU each thread spent during the flows, over all rounds.
        var flowThreads = ThreadTimes()
    }
    var rows = [
        Row(
            key: "web", label: "web flow, one phone", floor: webFloor, concurrency: 1, flow: webFlow,
            replays: true),
        Row(
            key: "web-crowd", label: "web flow, \(concurrency) phones at once", floor: webFloor,
            concurrency: concurrency, flow: webFlow, replays: true),
        Row(
            key: "apple", label: "native Apple, one phone", floor: appleFloor, concurrency: 1, flow: appleFlow
        ),
        Row(
            key: "apple-crowd", label: "native Apple, \(concurrency) phones at once", floor: appleFloor,
            concurrency: concurrency, flow: appleFlow),
    ].filter { selected?.contains($0.key) ?? true }
    /// A row's signatures run at one core's `openssl speed` rates alone, or every core's with
    /// concurrent phones.
    func signatureRates(_ row: Row) -> OpenSSLRates { row.concurrency == 1 ? rates : allCoreRates }
    /// A row's floor in flows per second: its requests at `requestsPerSecond`.
    func floorRate(_ row: Row, requestsPerSecond: Double) -> Double {
        row.floor.flowsPerSecond(requestsPerSecond: requestsPerSecond, rates: signatureRates(row))
    }
    /// The flow's rate with its requests replayed, its signatures priced as the floor's.
    func replayRate(_ row: Row) -> Double {
        row.floor.flowsPerSecond(replayedPerSecond: row.replayed.rate, rates: signatureRates(row))
    }
    let loopbackFloor = try await LoopbackFloor()
    let replay = rows.contains(where: \.replays) ? try FlowReplay(webExchanges) : nil
    var loopback: [Int: Tally] = [:]
    for _ in 0..<rounds {
        for index in rows.indices {
            let row = rows[index]
            let start = UsageReading.now()
            let requests = try await loopbackFloor.measure(seconds: slice / 2, concurrency: row.concurrency)
            let floorDone = UsageReading.now()
            if row.replays, let replay {
                let replayed = try await replay.measure(seconds: slice / 2, concurrency: row.concurrency)
                rows[index].replayed += replayed
                rows[index].replayCosts.append((UsageReading.now() - floorDone).per(replayed.count))
            }
            // Between the two windows: listing and reading `/proc/self/task` costs a few hundred
            // µs, which is neither the floor's work nor the flows'.
            let threadsBefore = ThreadTimes.now()
            let flowsStart = UsageReading.now()
            let flows = try await onPhoneThread {
                try await timedLoops(seconds: slice, concurrency: row.concurrency, row.flow)
            }
            let flowsDone = UsageReading.now()
            rows[index].flowThreads += ThreadTimes.now() - threadsBefore
            loopback[row.concurrency, default: Tally()] += requests
            rows[index].requests += requests
            rows[index].flows += flows
            rows[index].requestCosts.append((floorDone - start).per(requests.count))
            rows[index].flowCosts.append((flowsDone - flowsStart).per(flows.count))
            rows[index].roundRatios.append(flows.rate / floorRate(row, requestsPerSecond: requests.rate))
        }
    }

    print("")
    print(
        "full sign-ins on simulated phones against the embedded issuer over loopback "
            + "(\(rounds) interleaved rounds of \(String(format: "%.2f", slice / 2)) s floor loop, "
            + "\(String(format: "%.2f", slice / 2)) s replay for the web rows and "
            + "\(String(format: "%.2f", slice)) s flows per row; rates pooled over all rounds):")
    func rate(_ concurrency: Int) -> String {
        loopback[concurrency].map { String(format: "%.0f", $0.rate) } ?? "-"
    }
    print(
        "  loopback round trip (trivial handler, same transport): \(rate(1)) requests/s alone, "
            + "\(rate(concurrency)) with \(concurrency) at once")
    print(
        String(
            format:
                "  openssl speed: ECDSA P-256 %.0f sign/s, %.0f verify/s; RSA 2048 %.0f sign/s, %.0f verify/s"
                + " (one core); x%.2f ECDSA sign on %d cores",
            rates.ecdsaSign, rates.ecdsaVerify, rates.rsaSign, rates.rsaVerify,
            allCoreRates.ecdsaSign / rates.ecdsaSign, cores))
    print(
        "  web flow: authorize, login, consent, exchange, verify, keychain, refresh, sign-out; floor: \(webFloor.summary)"
    )
    print(
        "  native Apple: Apple authorize, exchange with user_profile, verify, keychain, sign-out; "
            + "floor: \(appleFloor.summary)")
    for row in rows {
        let floor = floorRate(row, requestsPerSecond: row.requests.rate)
        let ratio = row.flows.rate / floor
        let spread = row.roundRatios.sorted()
        print(
            String(
                format:
                    "    %-34@ %7.1f flows/s   floor %7.1f flows/s   ratio %5.1f%% (rounds' middle half %.1f–%.1f%%)   "
                    + "target >= 50%%: %@",
                row.label.padding(toLength: 34, withPad: " ", startingAt: 0), row.flows.rate, floor,
                ratio * 100, spread[spread.count / 4] * 100, spread[(spread.count * 3) / 4] * 100,
                ratio >= 0.5 ? "meets" : "BELOW"))
        let flowCPU = median(row.flowCosts.map(\.cpuSeconds))
        let requestCPU = median(row.requestCosts.map(\.cpuSeconds))
        print(
            String(
                format: "      every thread: %.2f ms CPU and %.0f context switches per flow; "
                    + "%.0f µs CPU and %.1f switches per floor request; %.0f%% of the machine stolen "
                    + "(median rounds)",
                flowCPU * 1000, median(row.flowCosts.map(\.contextSwitches)), requestCPU * 1e6,
                median(row.requestCosts.map(\.contextSwitches)),
                median(row.flowCosts.map(\.stolenShare)) * 100))
        let floorCPU = row.floor.cpuSeconds(perRequest: requestCPU, oneCoreRates: rates)
        print(
            String(
                format: "      the floor's CPU per flow: %.2f ms (its requests at that cost, its signatures "
                    + "at one core's rates), %.0f%% of the flow's",
                floorCPU * 1000, floorCPU / flowCPU * 100))
        if row.replays {
            // What the libraries alone take of the budget the target leaves, in µs of the row's
            // time per flow (wall time with one phone, throughput with several).
            let replayed = replayRate(row)
            let replayCPU = row.floor.cpuSeconds(
                perReplay: median(row.replayCosts.map(\.cpuSeconds)), oneCoreRates: rates)
            print(
                String(
                    format: "      its requests replayed through the libraries alone: %.1f flows/s, %.0f%% "
                        + "of the floor's rate; at 50%% a flow may add %.0f µs per flow to the replay, "
                        + "it adds %.0f; CPU per flow: replay %.2f ms, flow %.2f ms",
                    replayed, replayed / floor * 100, (2 / floor - 1 / replayed) * 1e6,
                    (1 / row.flows.rate - 1 / replayed) * 1e6, replayCPU * 1000, flowCPU * 1000))
        }
        // A thread near 100% bounds the row whatever the other core does.
        print(
            "      busiest threads during the flows: \(row.flowThreads.busiest(3, over: row.flows.seconds))")
    }
    if selected?.contains("timeline") ?? true, let identity = world.identity {
        // The lone round trip of this run, or a fresh measurement when the web row was skipped.
        let lone: Double
        if let pooled = loopback[1] {
            lone = pooled.rate
        } else {
            lone = try await loopbackFloor.measure(seconds: 1).rate
        }
        let timeline = try await onPhoneThread {
            try await FlowTimeline.measure(
                count: 500, app: webApps[0], issuer: identity.issuer, flow: { try await webFlow(0) })
        }
        print("")
        for line in timeline.report(trivialRoundTrip: 1e6 / lone) { print(line) }
    }
    await loopbackFloor.shutdown()
    await replay?.shutdown()
    await world.shutdown()
    guard devices > 0 else { return }

    // Memory: many phones alive at once, each with an app launched and a session in its keychain.
    let crowd = try await SimulationWorld.embedded(epoch: Int64(Date().timeIntervalSince1970))
    let before = residentMemory()
    var phones: [SimulatedPhone] = []
    for _ in 0..<devices {
        phones.append(try await signedInWebApp(in: crowd).phone)
    }
    let after = residentMemory()
    let signedIn = phones.filter { $0.device.keychain.count == 1 }.count
    print("")
    print(String(format: "%d simulated phones alive at once (%d signed in):", phones.count, signedIn))
    print(
        String(
            format: "  resident memory before %.1f MB, after %.1f MB; peak %.1f MB   target < 500 MB: %@",
            before.current, after.current, after.peak, after.peak < 500 ? "meets" : "BELOW"))
    await crowd.shutdown()
}
