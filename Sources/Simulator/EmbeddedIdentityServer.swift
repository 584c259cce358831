public import AppleID
public import Clocks
public import Cryptography
import HTTPClient
public import HTTPCore
import HTTPServer
public import Issuer

/// The embedded issuer and the simulated Sign in with Apple behind one loopback listener:
/// the default target of every simulated device, and what `signinsim serve` runs.
///
/// Apple lives under `/apple`. Unless the tenant's Apple connection names an `apple_url`, the
/// connection redeems codes at this hosted Apple in process, with developer credentials that
/// are the tenant's or a P-256 key made at start (registered with the hosted Apple, whose
/// default team becomes the connection's). Apple's RSA keys are the public test keys
/// (`AppleKeySet.fixed(seed:)`), never generated. Issuer and Apple share one clock.
public final class EmbeddedIdentityServer: Sendable {
    public static let applePathPrefix = "/apple"
    static let generatedTeamID = AppleConfiguration().defaultTeamID
    static let generatedKeyID = "SIMKEY0001"

    public let issuer: Issuer
    public let apple: AppleIDProvider
    private let server: MicroHTTPServer

    /// The issuer identifier (`http://127.0.0.1:PORT`).
    public var issuerURL: String { issuer.identifier }
    /// The hosted Apple's base URL (`http://127.0.0.1:PORT/apple`).
    public var appleURL: String { apple.baseURL }

    /// Starts listening and returns once requests are answered.
    ///
    /// - Parameters:
    ///   - ioThreads: the listener's IO threads, which also compute the issuer's answers
    ///     (`Issuer.respondImmediately`): one per core for a server under load.
    ///   - preferredPorts: ports to listen on before `port`, in order; one already in use is
    ///     passed over.
    ///   - shutdownGracePeriod: how long `shutdown()` waits for answers still in progress.
    ///   - log: called after each request with the time it took (for `serve`'s stderr lines).
    public static func start(
        tenant: Tenant = .default, host: String = "127.0.0.1", port: Int = 0, preferredPorts: [Int] = [],
        ioThreads: Int = 1, shutdownGracePeriod: Duration = .seconds(5),
        clock: any WallClock,
        random: any RandomSource = SystemRandom(), appleKeySeed: UInt64 = 0,
        keySource: SigningKeySource = .generated, outboundLog: ExchangeLog? = nil,
        log: (@Sendable (HTTPRequest, HTTPResponse, Duration) -> Void)? = nil
    ) async throws(SimulatorError) -> EmbeddedIdentityServer {
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.ioThreads = ioThreads
        configuration.shutdownGracePeriod = shutdownGracePeriod
        let slot = DeferredHandler()
        let immediate: ImmediateHTTPHandler = { request in
            let started = ContinuousClock.now
            return slot.respondImmediately(to: request)?.map { response in
                log?(request, response, ContinuousClock.now - started)
                return response
            }
        }
        let handler: HTTPHandler = { request in
            let started = ContinuousClock.now
            let response = await slot.respond(to: request)
            log?(request, response, ContinuousClock.now - started)
            return response
        }
        var listening: MicroHTTPServer?
        for candidate in preferredPorts + [port] {
            configuration.port = candidate
            let attempt = MicroHTTPServer(
                configuration: configuration, immediate: immediate, handler: handler)
            do {
                try attempt.start()
                listening = attempt
                break
            } catch  where error.code == .addressInUse && candidate != port {
                continue
            } catch {
                throw SimulatorError(error.message)
            }
        }
        guard let server = listening else { throw SimulatorError("no port to listen on") }
        do {
            let deployment = try EmbeddedIdentityServer(
                server: server, tenant: tenant, clock: clock, random: random, appleKeySeed: appleKeySeed,
                keySource: keySource, outboundLog: outboundLog, log: log)
            let issuer = deployment.issuer
            let apple = deployment.apple
            // The simulated Apple has no immediate form: its requests go to the task pool.
            slot.set(
                immediate: { request in
                    isApplePath(request.path) ? nil : issuer.respondImmediately(to: request)
                },
                handler: { request in
                    isApplePath(request.path)
                        ? await apple.respond(to: request) : await issuer.respond(to: request)
                })
            return deployment
        } catch {
            await server.shutdown()
            throw error
        }
    }

    private init(
        server: MicroHTTPServer, tenant: Tenant, clock: any WallClock, random: any RandomSource,
        appleKeySeed: UInt64, keySource: SigningKeySource, outboundLog: ExchangeLog?,
        log: (@Sendable (HTTPRequest, HTTPResponse, Duration) -> Void)?
    ) throws(SimulatorError) {
        self.server = server
        var tenant = tenant
        let index = tenant.connections.firstIndex {
            if case .apple = $0.kind { return true }
            return false
        }
        var configuration = AppleConfiguration()
        var developerKey: (teamID: String, keyID: String, publicKey: P256PublicKey)?
        var hosted = false
        if let index, tenant.connections[index].apple.appleURL == nil {
            hosted = true
            var settings = tenant.connections[index].apple
            settings.appleURL = server.baseURL + Self.applePathPrefix
            if settings.hasCredentials, let teamID = settings.teamID, let keyID = settings.keyID,
                let pem = settings.privateKeyPEM
            {
                do {
                    developerKey = (teamID, keyID, try P256PrivateKey(pem: pem).publicKey)
                } catch {
                    throw SimulatorError("the Apple connection's developer key is unusable: \(error.message)")
                }
            } else {
                guard let (key, pem) = Self.generatedDeveloperKey else {
                    throw SimulatorError("cannot make the Apple developer key")
                }
                settings.teamID = Self.generatedTeamID
                settings.keyID = Self.generatedKeyID
                settings.privateKeyPEM = pem
                developerKey = (Self.generatedTeamID, Self.generatedKeyID, key.publicKey)
            }
            if let teamID = developerKey?.teamID { configuration.defaultTeamID = teamID }
            tenant.connections[index].apple = settings
        }
        let apple = AppleIDProvider(
            baseURL: server.baseURL + Self.applePathPrefix, clock: clock, random: random,
            keySet: AppleKeySet.fixed(seed: appleKeySeed), configuration: configuration)
        if let developerKey {
            apple.registerDeveloperKey(
                teamID: developerKey.teamID, keyID: developerKey.keyID, publicKey: developerKey.publicKey)
        }
        let issuer: Issuer
        do {
            issuer = try Issuer(
                baseURL: server.baseURL, tenant: tenant, clock: clock, random: random, keySource: keySource)
        } catch {
            throw SimulatorError(error.message)
        }
        if index != nil {
            let transport: any HTTPTransport
            if hosted {
                transport = ClosureTransport { request throws(HTTPError) in
                    let started = ContinuousClock.now
                    let response = await apple.respond(to: request)
                    log?(request, response, ContinuousClock.now - started)
                    return response
                }
            } else {
                transport = CurlTransport(cookieJar: nil)
            }
            let recorded: any HTTPTransport =
                outboundLog.map { log in
                    RecordingTransport(inner: transport, source: "issuer", log: log) { clock.now() * 1000 }
                } ?? transport
            do {
                try issuer.connectApple(transport: recorded)
            } catch {
                throw SimulatorError(error.message)
            }
        }
        self.apple = apple
        self.issuer = issuer
    }

    /// The developer key of hosted Apple connections without one: one per process. It only
    /// signs client secrets, whose ECDSA signatures differ on every run anyway.
    static let generatedDeveloperKey: (P256PrivateKey, String)? = {
        guard let key = try? P256PrivateKey() else { return nil }
        return (key, key.pemRepresentation())
    }()

    static func isApplePath(_ path: String) -> Bool {
        path == applePathPrefix || path.hasPrefix(applePathPrefix + "/")
    }

    /// Stops listening after the requests in progress are answered (or the grace period given
    /// at start has passed).
    public func shutdown() async { await server.shutdown() }
}
