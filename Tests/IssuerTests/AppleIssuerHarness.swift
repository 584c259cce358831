import AppleID
import Clocks
import Cryptography
import HTTPClient
import HTTPCore
import HTTPServer
import Issuer
import JSON
import Locking
import OAuthCore
import TestSupport

/// The issuer's developer team at the simulated Apple, its key id and key (fixed seed: runs repeat).
let appleTeamID = "TEAMISS001"
let appleKeyID = "KEYISS0001"
let appleDeveloperKey = try! P256PrivateKey(random: SeededRandom(seed: 0xA991E))
/// Apple's signing keys for these tests: parsed once per process.
let appleTestKeySet = AppleKeySet.fixed(seed: 3)
/// An app of the same team that is not the issuer's client.
let otherBundleID = "com.example.other"

/// What a test can make Apple's side of the wire do to the next calls.
final class AppleWire: Sendable {
    enum Fault: Sendable { case serverError, unreachable }
    private let faults = Mutex<[Fault]>([])

    /// The next call to Apple fails this way (without reaching the provider).
    func failNext(_ fault: Fault) { faults.withLock { $0.append(fault) } }

    func wrap(_ base: any HTTPTransport) -> any HTTPTransport {
        ClosureTransport { [self] request throws(HTTPError) in
            switch faults.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            case .serverError?:
                return .json(["error": "server_error"], status: 500)
            case .unreachable?:
                throw HTTPError(.connectionFailed, "injected: Apple unreachable")
            case nil:
                return try await base.send(request)
            }
        }
    }
}

/// An issuer whose Apple connection talks to a simulated Apple on the same clock.
struct AppleIssuerFixture: Sendable {
    let issuer: IssuerFixture
    let apple: AppleIDProvider
    let wire: AppleWire

    var clock: ManualWallClock { issuer.clock }

    /// A native Sign in with Apple on the device, approved; the first one for an app returns
    /// the name and email, later ones neither.
    func authorize(
        _ email: String = "ada@example.com", bundleID: String = appClientID, nonce: String? = nil,
        privateRelay: Bool = false, scopes: [AppleScope] = [.fullName, .email]
    ) throws -> AppleIDCredential {
        try apple.authorize(
            AppleAuthorizationRequest(
                account: AppleIDAccount(
                    email: email, givenName: "Ada", familyName: "Lovelace", privateRelay: privateRelay),
                bundleID: bundleID, requestedScopes: scopes, nonce: nonce))
    }

    /// The exchange of an Apple authorization code at the issuer, as Auth0's SDKs send it.
    func exchange(code: String, extra: FormParameters = [:]) async throws -> HTTPResponse {
        try await issuer.exchange(code, type: TokenTypeIdentifier.appleAuthorizationCode, extra: extra)
    }

    /// The `user_profile` an app builds from the credential's name, or `nil` when it has none.
    static func userProfile(_ credential: AppleIDCredential) -> String? {
        guard let name = credential.fullName else { return nil }
        var parts: [String: JSONValue] = [:]
        if let given = name.givenName { parts["firstName"] = .string(given) }
        if let family = name.familyName { parts["lastName"] = .string(family) }
        return JSONValue.object(["name": .object(parts)]).serializedString()
    }

    /// The credential's code exchanged with the `user_profile` its name gives, if any.
    func signIn(_ credential: AppleIDCredential, extra: FormParameters = [:]) async throws -> HTTPResponse {
        var form = extra
        if let profile = Self.userProfile(credential) { form["user_profile"] = profile }
        return try await exchange(code: credential.authorizationCode, extra: form)
    }

    /// The issuer's user of an Apple credential.
    func user(_ credential: AppleIDCredential) async throws -> JSONValue? {
        try await issuer.adminUser("apple|" + credential.user)
    }
}

/// The default tenant plus the partner OpenID provider, with its Apple connection's settings.
func appleTenant(
    appleURL: String, _ adjust: (inout AppleConnectionSettings) -> Void = { _ in }
) -> Tenant {
    var tenant = tokenTestTenant()
    var settings = AppleConnectionSettings(
        appleURL: appleURL, teamID: appleTeamID, keyID: appleKeyID,
        privateKeyPEM: appleDeveloperKey.pemRepresentation())
    adjust(&settings)
    for index in tenant.connections.indices where tenant.connections[index].name == "apple" {
        tenant.connections[index].apple = settings
    }
    return tenant
}

/// Runs `body` against an issuer (deployed as asked) connected to a simulated Apple: in process
/// through a `ClosureTransport`, or over loopback through libcurl to a second listener. Both share
/// the issuer's `ManualWallClock`.
func withAppleAndIssuer(
    _ deployment: Deployment, configuration: AppleConfiguration = .init(),
    settings: @escaping @Sendable (inout AppleConnectionSettings) -> Void = { _ in },
    _ body: @escaping @Sendable (AppleIssuerFixture) async throws -> Void
) async throws {
    var adjusted = configuration
    adjusted.defaultTeamID = appleTeamID
    let configuration = adjusted
    let wire = AppleWire()
    func run(
        appleURL: String, transport: any HTTPTransport, attach: @escaping @Sendable (AppleIDProvider) -> Void
    )
        async throws
    {
        try await withIssuer(deployment, tenant: appleTenant(appleURL: appleURL, settings)) { fixture in
            let apple = AppleIDProvider(
                baseURL: appleURL, clock: fixture.clock, random: SeededRandom(seed: 7),
                keySet: appleTestKeySet,
                configuration: configuration)
            apple.registerDeveloperKey(
                teamID: appleTeamID, keyID: appleKeyID, publicKey: appleDeveloperKey.publicKey)
            attach(apple)
            try fixture.issuer.connectApple(transport: wire.wrap(transport))
            try await body(AppleIssuerFixture(issuer: fixture, apple: apple, wire: wire))
        }
    }
    switch deployment {
    case .inProcess:
        let slot = DeferredHandler()
        try await run(
            appleURL: "https://appleid.test",
            transport: ClosureTransport { request throws(HTTPError) in await slot.respond(to: request) },
            attach: { apple in slot.set { request in await apple.respond(to: request) } })
    case .loopback:
        let slot = DeferredHandler()
        let server = MicroHTTPServer { request in await slot.respond(to: request) }
        try server.start()
        do {
            try await run(
                appleURL: server.baseURL + "/apple", transport: CurlTransport(cookieJar: nil),
                attach: { apple in slot.set { request in await apple.respond(to: request) } })
            await server.shutdown()
        } catch {
            await server.shutdown()
            throw error
        }
    }
}
