import AppleID
import Foundation
import HTTPClient
import HTTPCore
import HTTPServer
import SignInSDK
import Simulator
import Synchronization

/// What one full flow costs at least: its requests at the loopback round-trip rate and its
/// signatures at `openssl speed`'s rates (one core), measured in the same run.
struct FlowFloor {
    var requests: Double
    var ecSigns: Double
    var ecVerifies: Double
    var rsaSigns: Double = 0
    var rsaVerifies: Double = 0

    func flowsPerSecond(requestsPerSecond: Double, rates: OpenSSLRates) -> Double {
        let seconds =
            requests / requestsPerSecond + ecSigns / rates.ecdsaSign + ecVerifies / rates.ecdsaVerify
            + rsaSigns / rates.rsaSign + rsaVerifies / rates.rsaVerify
        return 1 / seconds
    }

    var summary: String {
        var parts = [
            "\(Int(requests)) loopback requests", "\(Int(ecSigns)) ES256 sign",
            "\(Int(ecVerifies)) ES256 verify",
        ]
        if rsaSigns > 0 { parts.append("\(Int(rsaSigns)) RS256 sign") }
        if rsaVerifies > 0 { parts.append("\(Int(rsaVerifies)) RS256 verify") }
        return parts.joined(separator: ", ")
    }
}

/// Sequential loopback round trips per second through the same libcurl transport the phones
/// use, against a handler that answers at once: the cheapest request the flows could make.
func loopbackRequestsPerSecond(seconds: Double) async throws -> Double {
    let server = MicroHTTPServer { _ in .json(["ok": true]) }
    try server.start()
    defer { Task { await server.shutdown() } }
    let transport = CurlTransport(cookieJar: nil)
    let request = HTTPRequest.form(url: server.baseURL + "/token", parameters: ["grant_type": "x"])
    for _ in 0..<50 { _ = try await transport.send(request) }
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while clock.now - start < .milliseconds(Int64(seconds * 1000)) {
        _ = try await transport.send(request)
        count += 1
    }
    return Double(count) / benchSeconds(clock.now - start)
}

func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}

/// Peak and current resident memory of this process, in MB (`VmHWM`, `VmRSS`).
func residentMemory() -> (peak: Double, current: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
        return (0, 0)
    }
    func field(_ name: String) -> Double {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.split(separator: " ").compactMap { Double($0) }
            return (digits.first ?? 0) / 1024
        }
        return 0
    }
    return (field("VmHWM"), field("VmRSS"))
}

/// Full sign-ins on simulated phones against the embedded issuer over loopback, next to their floor.
func benchClient(seconds: Double, devices: Int) async throws {
    print("openssl speed -seconds 1 ecdsap256 rsa2048 …")
    let rates = try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try runOpenSSLSpeed(seconds: 1) }) }
    }
    let requestRate = try await loopbackRequestsPerSecond(seconds: min(seconds, 3))
    let world = try await SimulationWorld.embedded(epoch: Int64(Date().timeIntervalSince1970))
    let clock = ContinuousClock()

    // The app is launched once (discovery and keys fetched and cached, as an app does at
    // start); each flow is then a whole sign-in from a fresh ephemeral sheet to sign-out.
    let webPhone = try world.addPhone()
    let webApp = try webPhone.install(world.defaultAppConfiguration())
    try await webApp.launch()
    webApp.webUser = .signIn(username: "alice@example.com", password: "alice-password")
    _ = try await webApp.perform { try await $0.signIn() }
    try await webApp.perform { try await $0.signOut() }
    @Sendable func webFlow(_ index: Int) async throws {
        _ = try await webApp.perform { try await $0.signIn() }
        _ = try await webApp.perform { try await $0.renewSession() }
        try await webApp.perform { try await $0.signOut() }
    }
    let applePhone = try world.addPhone()
    applePhone.appleAccount = AppleIDAccount(
        email: "bench@example.com", givenName: "Bench", familyName: "User")
    let appleApp = try applePhone.install(world.defaultAppConfiguration())
    try await appleApp.launch()
    _ = try await appleApp.perform { try await $0.signInWithApple() }
    @Sendable func appleFlow(_ index: Int) async throws {
        _ = try await appleApp.perform { try await $0.signInWithApple() }
        try await appleApp.perform { try await $0.signOut(callEndSession: false) }
    }
    // Count one flow's requests from the device's network log.
    _ = webPhone.device.network.drainLog()
    try await webFlow(0)
    let webRequests = webPhone.device.network.drainLog().count
    _ = applePhone.device.network.drainLog()
    try await appleFlow(0)
    // Native authorization reaches the simulated Apple outside the app's network: one more.
    let appleRequests = applePhone.device.network.drainLog().count + 1
    // Web: the issuer signs access and ID tokens at the exchange and the refresh (4 ES256);
    // the app verifies both ID tokens, the issuer the id_token_hint at sign-out (3 verifies).
    let webFloor = FlowFloor(requests: Double(webRequests), ecSigns: 4, ecVerifies: 3)
    // Apple: the identity and Apple ID tokens (2 RS256 sign), the issuer checks Apple's token
    // (1 RS256 verify); the client secret and the issuer's two tokens (3 ES256 sign), Apple
    // checks the secret and the app the ID token (2 ES256 verify).
    let appleFloor = FlowFloor(
        requests: Double(appleRequests), ecSigns: 3, ecVerifies: 2, rsaSigns: 2, rsaVerifies: 1)

    func run(_ name: String, _ flow: (Int) async throws -> Void) async throws -> Double {
        let start = clock.now
        var count = 0
        while clock.now - start < .milliseconds(Int64(seconds * 1000)) {
            count += 1
            try await flow(count)
        }
        return Double(count) / benchSeconds(clock.now - start)
    }
    let webRate = try await run("web", webFlow)
    let appleRate = try await run("apple", appleFlow)

    print("")
    print(
        "full sign-ins on simulated phones against the embedded issuer, loopback, one at a time, \(Int(seconds)) s each:"
    )
    print(
        String(
            format: "  loopback round trip (trivial handler, same transport)   %9.0f requests/s", requestRate)
    )
    for (name, rate, floor) in [
        (
            "web flow   (authorize, login, consent, exchange, verify, keychain, refresh, sign-out)", webRate,
            webFloor
        ),
        (
            "native Apple (Apple authorize, exchange with user_profile, verify, keychain, local sign-out)",
            appleRate,
            appleFloor
        ),
    ] {
        let floorRate = floor.flowsPerSecond(requestsPerSecond: requestRate, rates: rates)
        print("  \(name)")
        print(
            String(
                format: "    measured %8.1f flows/s   floor %8.1f flows/s (%@)", rate, floorRate,
                floor.summary))
        print(
            String(
                format: "    ratio    %7.1f%%   target >= 50%%: %@", rate / floorRate * 100,
                rate / floorRate >= 0.5 ? "meets" : "BELOW"))
    }
    print(
        String(
            format:
                "  openssl speed: ECDSA P-256 %.0f sign/s, %.0f verify/s; RSA 2048 %.0f sign/s, %.0f verify/s",
            rates.ecdsaSign, rates.ecdsaVerify, rates.rsaSign, rates.rsaVerify))
    await world.shutdown()

    // Memory: many phones alive at once, each with an app launched and a session in its keychain.
    let crowd = try await SimulationWorld.embedded(epoch: Int64(Date().timeIntervalSince1970))
    let before = residentMemory()
    var phones: [SimulatedPhone] = []
    for _ in 0..<devices {
        let phone = try crowd.addPhone()
        let app = try phone.install(crowd.defaultAppConfiguration())
        try await app.launch()
        app.webUser = .signIn(username: "alice@example.com", password: "alice-password")
        _ = try await app.perform { try await $0.signIn() }
        phones.append(phone)
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

func benchSeconds(_ duration: Duration) -> Double { seconds(duration) }
