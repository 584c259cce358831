public import Clocks
import Cryptography
public import Device
public import HTTPClient
public import HTTPCore
public import Issuer
import Locking
public import SignInSDK
public import WebKitSession

/// One simulated world: a virtual scheduler that is the only source of time, the embedded
/// issuer and Apple on loopback (or a real issuer), one libcurl loop, and the phones.
///
/// With a seed, randomness is derived from it (each phone gets its own stream), so the run makes
/// the same choices every time; only what the protocols randomise (ECDSA signatures) differs.
/// Without one, the phones and the embedded issuer draw from the system's random source, as a
/// real phone does: against a real issuer, `state`, `nonce`, PKCE verifiers and DPoP keys must
/// not repeat from run to run.
public final class SimulationWorld: Sendable {
    public static let defaultEpoch: Int64 = 1_800_000_000

    public let scheduler: VirtualScheduler
    /// The world's seed; `nil` for fresh randomness.
    public let seed: UInt64?
    /// The embedded issuer and Apple, when this world hosts them.
    public let identity: EmbeddedIdentityServer?
    public let curl: CurlTransport
    /// What the phones' Apple ID sheets and the embedded issuer send outside the apps'
    /// networks (each device's network keeps its own log).
    public let exchangeLog: ExchangeLog
    /// The WebKit engine the phones' `webkit` sheets run in, when the run has one.
    public let webKit: WebKitEngine?
    private let phones = Mutex<[SimulatedPhone]>([])

    /// A world hosting the embedded issuer (and Apple) with `tenant`.
    public static func embedded(
        tenant: Tenant = .default, seed: UInt64? = 0, epoch: Int64 = defaultEpoch, webKit: WebKitEngine? = nil
    ) async throws(SimulatorError) -> SimulationWorld {
        let scheduler = VirtualScheduler(epochSeconds: epoch)
        let log = ExchangeLog()
        // Without a seed, one drawn now picks the ports and Apple's keys; what the protocols
        // need unpredictable comes from the system.
        let portSeed = seed ?? SystemRandom().bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // A world ends with its scenario: nothing waits for an answer still in progress (a
        // request held by a delay fault, say), so shutdown does not either.
        let identity = try await EmbeddedIdentityServer.start(
            tenant: tenant, preferredPorts: listeningPorts(seed: portSeed), shutdownGracePeriod: .zero,
            clock: WorldClock(scheduler: scheduler),
            random: seed.map { SeededRandom(seed: $0 ^ 0x1554_e5) } ?? SystemRandom(), appleKeySeed: portSeed,
            keySource: seed.map { .seeded(SeededRandom(seed: $0 ^ 0x5167_4b65_7973)) } ?? .generated,
            outboundLog: log)
        return SimulationWorld(
            scheduler: scheduler, seed: seed, identity: identity, exchangeLog: log, webKit: webKit)
    }

    /// The ports a world with `seed` listens on first: four drawn from the seed's own random
    /// stream in 20000..<32000, below Linux's ephemeral range, so that another run with the seed
    /// gets the same issuer URL, and with it the same `iss` in every token and the same URLs in
    /// every report. Two worlds that draw the same port (or a port some other program holds)
    /// move on to the next; only then does a run differ from the last.
    static func listeningPorts(seed: UInt64) -> [Int] {
        let bytes = SeededRandom(seed: seed ^ 0x706f_7274).bytes(count: 8)
        return stride(from: 0, to: bytes.count, by: 2).map {
            20000 + (Int(bytes[$0]) << 8 | Int(bytes[$0 + 1])) % 12000
        }
    }

    /// A world whose phones talk to issuers elsewhere (no embedded issuer).
    public static func external(seed: UInt64? = 0, epoch: Int64? = nil, webKit: WebKitEngine? = nil)
        -> SimulationWorld
    {
        SimulationWorld(
            scheduler: VirtualScheduler(epochSeconds: epoch ?? SystemWallClock().now()), seed: seed,
            identity: nil, exchangeLog: ExchangeLog(), webKit: webKit)
    }

    private init(
        scheduler: VirtualScheduler, seed: UInt64?, identity: EmbeddedIdentityServer?,
        exchangeLog: ExchangeLog, webKit: WebKitEngine?
    ) {
        self.scheduler = scheduler
        self.seed = seed
        self.identity = identity
        self.exchangeLog = exchangeLog
        self.webKit = webKit
        curl = CurlTransport(cookieJar: nil)
    }

    /// The world's time as the issuer sees it.
    public var clock: WorldClock { WorldClock(scheduler: scheduler) }

    /// Moves the world's time (tokens and codes age; sleeping work runs).
    public func advance(by seconds: Int64) {
        _ = scheduler.advance(by: .seconds(seconds))
    }

    /// Adds a phone: booted, unlocked, with a passcode, its clock `skew` seconds off.
    ///   - appleURL: the simulated Apple the phone's Apple ID talks to (default: the embedded one).
    ///   - network: what lies beyond the phone's network conditions (default: loopback HTTP
    ///     through libcurl, with cookie jars); a replay passes its recorded issuer.
    ///   - appleTransport: what lies beyond the phone's Apple ID sheet (default: loopback HTTP
    ///     through libcurl); a replay passes its recorded Apple.
    public func addPhone(
        name: String? = nil, skew: Int64 = 0, hasPasscode: Bool = true, appleURL: String? = nil,
        network: (any HTTPTransport)? = nil, appleTransport: (any HTTPTransport)? = nil
    ) throws(DeviceError) -> SimulatedPhone {
        let index = phones.withLock { $0.count }
        let random: any RandomSource =
            seed.map { SeededRandom(seed: $0 &+ UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15) }
            ?? SystemRandom()
        let device = try SimulatedDevice(
            scheduler: scheduler, skew: skew, random: random,
            hasPasscode: hasPasscode, transport: network ?? CookieJarRoutingTransport(curl: curl))
        let phone = SimulatedPhone(
            name: name ?? "phone-\(index + 1)", device: device, appleURL: appleURL ?? identity?.appleURL,
            curl: curl, appleTransport: appleTransport, exchangeLog: exchangeLog, webKit: webKit)
        phones.withLock { $0.append(phone) }
        return phone
    }

    /// The SDK options of the embedded issuer's default native client.
    public func defaultAppConfiguration(
        profile: BehaviorProfile = .default, bundleID: String = "com.example.app"
    ) -> AppConfiguration {
        AppConfiguration(
            bundleID: bundleID,
            options: SignInOptions(
                issuer: identity?.issuerURL ?? "", clientID: "com.example.app",
                redirectURI: "com.example.app://auth/callback", profile: profile))
    }

    /// Stops the embedded issuer; phones stay readable.
    public func shutdown() async {
        for phone in phones.withLock({ $0 }) {
            for app in phone.apps where app.state.phase.isRunning { app.dropProcess() }
            await phone.webKitBrowser?.close()
        }
        await identity?.shutdown()
    }
}
