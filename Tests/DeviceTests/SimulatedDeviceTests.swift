import Clocks
import Cryptography
import Device
import HTTPCore
import JSON
import Testing

@Suite("Simulated device")
struct SimulatedDeviceTests {
    static let bundleID = "com.example.app"
    static let token = KeychainItemKey(
        accessGroup: "TEAM.com.example.app", service: "auth", account: "refresh")

    static func makeDevice(seed: UInt64 = 7) throws -> SimulatedDevice {
        try SimulatedDevice(
            scheduler: VirtualScheduler(epochSeconds: 1_700_000_000), skew: 0,
            random: SeededRandom(seed: seed),
            transport: ClosureTransport { _ in .text("ok") })
    }

    /// After a reboot a prewarmed app runs but cannot read its after-first-unlock token; after the
    /// first unlock it can, and still can once the device locks again (field bug 4).
    @Test func prewarmBeforeFirstUnlock() throws {
        let device = try Self.makeDevice()
        try device.install(Self.bundleID)
        try device.launch(Self.bundleID)
        try device.keychain.add([1, 2, 3], for: Self.token, accessibility: .afterFirstUnlock)

        let terminated = try device.reboot()
        #expect(terminated.map(\.bundleID) == [Self.bundleID])
        #expect(device.app(Self.bundleID).phase == .notRunning)
        #expect(
            throws: DeviceError(.invalidLifecycleState, "cannot launch com.example.app: the device is locked")
        ) {
            try device.launch(Self.bundleID, .userTap)
        }
        let prewarm = try device.launch(Self.bundleID, .prewarm)
        #expect(prewarm.to == .background)
        #expect(prewarm.generation == 2)
        let locked = #expect(throws: KeychainError.self) { try device.keychain.read(Self.token) }
        #expect(locked?.status == -25_308)

        try device.unlock()
        #expect(try device.keychain.read(Self.token) == [1, 2, 3])
        try device.foreground(Self.bundleID)
        let backgrounded = try device.lock()
        #expect(backgrounded.map(\.to) == [.background])
        #expect(try device.keychain.read(Self.token) == [1, 2, 3])
    }

    /// A locked device refuses to bring an app forward, and a device that is off runs nothing.
    @Test func deviceRulesForApps() throws {
        let device = try Self.makeDevice()
        try device.install(Self.bundleID)
        try device.launch(Self.bundleID, .background)
        try device.lock()
        #expect(
            throws: DeviceError(
                .invalidLifecycleState, "cannot foreground com.example.app: the device is locked")
        ) {
            try device.foreground(Self.bundleID)
        }
        try device.shutDown()
        #expect(device.app(Self.bundleID).phase == .notRunning)
        #expect(
            throws: DeviceError(.invalidLifecycleState, "cannot launch com.example.app: the device is off")
        ) {
            try device.launch(Self.bundleID, .background)
        }
        try device.boot()
        #expect(device.keychain.lockState == .beforeFirstUnlock)
    }

    /// Reinstalling wipes preferences but keeps keychain items: the old session resurfaces (field bug 16).
    @Test func reinstallKeepsKeychainWipesPreferences() throws {
        let device = try Self.makeDevice()
        try device.install(Self.bundleID)
        try device.launch(Self.bundleID)
        try device.setPreference(true, forKey: "hasRunBefore", of: Self.bundleID)
        try device.keychain.add([42], for: Self.token, accessibility: .afterFirstUnlock)
        #expect(device.preference("hasRunBefore", of: Self.bundleID) == true)

        let transition = try device.reinstall(Self.bundleID)
        #expect(transition.endedProcess)
        #expect(device.preference("hasRunBefore", of: Self.bundleID) == nil)
        #expect(try device.keychain.read(Self.token) == [42])
        #expect(device.app(Self.bundleID).installCount == 2)

        try device.uninstall(Self.bundleID)
        #expect(
            throws: DeviceError(
                .invalidLifecycleState, "cannot set preference k of com.example.app: not installed")
        ) {
            try device.setPreference("v", forKey: "k", of: Self.bundleID)
        }
        #expect(device.keychain.count == 1)
    }

    /// Several apps live side by side; a reboot terminates each running one, in bundle-ID order.
    @Test func severalApps() throws {
        let device = try Self.makeDevice()
        for bundleID in ["com.b", "com.a", "com.c"] { try device.install(bundleID) }
        try device.launch("com.b")
        try device.launch("com.a", .background)
        let transitions = try device.reboot()
        #expect(transitions.map(\.bundleID) == ["com.a", "com.b"])
        #expect(device.apps.map(\.bundleID) == ["com.a", "com.b", "com.c"])
    }

    /// Removing the passcode through the device destroys the keychain's passcode-set items.
    @Test func removingPasscodeThroughTheDevice() throws {
        let device = try Self.makeDevice()
        try device.keychain.add([1], for: Self.token, accessibility: .whenPasscodeSetThisDeviceOnly)
        try device.removePasscode()
        #expect(device.keychain.count == 0)
        #expect(device.keychain.lockState.hasPasscode == false)
    }

    /// The same seed gives the same random bytes; the device clock carries its skew.
    @Test func seededRandomnessAndSkewedClock() throws {
        let first = try Self.makeDevice(seed: 99)
        let second = try Self.makeDevice(seed: 99)
        #expect(first.random.bytes(count: 16) == second.random.bytes(count: 16))
        let skewed = try SimulatedDevice(
            scheduler: VirtualScheduler(epochSeconds: 1_000), skew: -30, random: SeededRandom(seed: 1),
            transport: ClosureTransport { _ in .text("ok") })
        #expect(skewed.clock.now() == 970)
    }

    /// Latency on the device's network is slept in virtual time: the request waits for an advance.
    @Test func latencyUsesVirtualTime() async throws {
        let device = try Self.makeDevice()
        device.network.setLatency(.seconds(2))
        let request = Task { try await device.network.send(HTTPRequest(url: "https://issuer.example/x")) }
        for _ in 0..<100_000 where device.scheduler.pendingCount == 0 { await Task.yield() }
        #expect(device.scheduler.nextDeadline == VirtualInstant(milliseconds: 2_000))
        device.scheduler.advance(by: .seconds(2))
        #expect(try await request.value.status == 200)
    }
}
