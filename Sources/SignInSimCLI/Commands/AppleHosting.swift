import AppleID
import Clocks
import Cryptography
import HTTPClient
import HTTPCore
import Issuer

/// The simulated Sign in with Apple that `signinsim serve` hosts under `/apple`, and the
/// issuer's Apple connection pointed at it.
///
/// The connection goes to the hosted provider unless the tenant file gives it an `apple_url`.
/// Its developer credentials are the tenant file's, or a P-256 key made at start (cheap); either
/// way they are registered with the hosted provider, whose default team becomes the
/// connection's, so that `/apple/_admin/authorize` without a `team_id` makes redeemable codes.
/// Apple's RSA keys are the public test keys (`AppleKeySet.fixed(seed:)`): never generated.
struct AppleHosting {
    static let pathPrefix = "/apple"
    static let generatedTeamID = AppleConfiguration().defaultTeamID
    static let generatedKeyID = "SIMKEY0001"

    let provider: AppleIDProvider
    /// The tenant with its Apple connection completed.
    let tenant: Tenant
    /// Whether the connection calls the hosted provider (in process) rather than an external URL.
    let connectsToHostedProvider: Bool

    static func isApplePath(_ path: String) -> Bool {
        path == pathPrefix || path.hasPrefix(pathPrefix + "/")
    }

    init(tenant: Tenant, serverURL: String, clock: OffsetWallClock, seed: UInt64) throws(CommandFailure) {
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
            settings.appleURL = serverURL + Self.pathPrefix
            if settings.hasCredentials, let teamID = settings.teamID, let keyID = settings.keyID,
                let pem = settings.privateKeyPEM
            {
                do {
                    developerKey = (teamID, keyID, try P256PrivateKey(pem: pem).publicKey)
                } catch {
                    throw CommandFailure("the Apple connection's developer key is unusable: \(error.message)")
                }
            } else {
                let key: P256PrivateKey
                do {
                    key = try P256PrivateKey()
                } catch {
                    throw CommandFailure("cannot make the Apple developer key: \(error.message)")
                }
                settings.teamID = Self.generatedTeamID
                settings.keyID = Self.generatedKeyID
                settings.privateKeyPEM = key.pemRepresentation()
                developerKey = (Self.generatedTeamID, Self.generatedKeyID, key.publicKey)
            }
            if let teamID = developerKey?.teamID { configuration.defaultTeamID = teamID }
            tenant.connections[index].apple = settings
        }
        provider = AppleIDProvider(
            baseURL: serverURL + Self.pathPrefix, clock: clock, random: SystemRandom(),
            keySet: AppleKeySet.fixed(seed: seed), configuration: configuration)
        if let developerKey {
            provider.registerDeveloperKey(
                teamID: developerKey.teamID, keyID: developerKey.keyID, publicKey: developerKey.publicKey)
        }
        self.tenant = tenant
        connectsToHostedProvider = hosted
    }

    /// Connects the issuer's Apple connection: to the hosted provider in process (each call
    /// logged like a request), or over HTTP to the tenant's `apple_url`. A tenant without an
    /// Apple connection is left as it is.
    func connect(_ issuer: Issuer, log: @escaping @Sendable (String) -> Void) throws(IssuerError) {
        let hasConnection = tenant.connections.contains {
            if case .apple = $0.kind { return true }
            return false
        }
        guard hasConnection else { return }
        let transport: any HTTPTransport
        if connectsToHostedProvider {
            let provider = provider
            transport = ClosureTransport { request throws(HTTPError) in
                let started = ContinuousClock.now
                let response = await provider.respond(to: request)
                log(RequestLogLine.format(request, response, elapsed: ContinuousClock.now - started))
                return response
            }
        } else {
            transport = CurlTransport(cookieJar: nil)
        }
        try issuer.connectApple(transport: transport)
    }
}
