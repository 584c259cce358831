import AppleID
import Clocks
import Cryptography
import HTTPClient
import HTTPCore
import HTTPServer
import JOSE
import JSON
import TestSupport

/// The time every Apple test starts at.
let testEpoch: Int64 = 1_800_000_000

/// The developer team the fixture's apps belong to, its key id, and a second team.
let teamA = "TEAMA00001"
let keyA = "KEYA000001"
let teamB = "TEAMB00002"
let keyB = "KEYB000002"
let appA = "com.example.alpha"
let appB = "com.example.beta"

/// The same key set for every test: parsed once per process.
let testKeySet = AppleKeySet.fixed(seed: 1)

/// Developer keys, derived from fixed seeds so that runs repeat.
let developerKeyA = try! P256PrivateKey(random: SeededRandom(seed: 0xA))
let developerKeyB = try! P256PrivateKey(random: SeededRandom(seed: 0xB))

/// A provider under test, its clock, and ways to talk to it.
struct AppleFixture: Sendable {
    let provider: AppleIDProvider
    let clock: ManualWallClock
    let deployment: Deployment
    let transport: any HTTPTransport

    var baseURL: String { provider.baseURL }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await transport.send(request)
    }

    func get(_ path: String) async throws(HTTPError) -> HTTPResponse {
        try await send(HTTPRequest(url: baseURL + path))
    }

    func postForm(_ path: String, _ parameters: FormParameters) async throws(HTTPError) -> HTTPResponse {
        try await send(.form(url: baseURL + path, parameters: parameters))
    }

    func postJSON(_ path: String, _ body: JSONValue) async throws(HTTPError) -> HTTPResponse {
        try await send(.json(url: baseURL + path, body: body))
    }

    /// A valid client secret of team A (or B) for `clientID`, issued now.
    func secret(_ clientID: String = appA, team: String = teamA) throws -> String {
        let (keyID, key) = team == teamB ? (keyB, developerKeyB) : (keyA, developerKeyA)
        return try AppleClientSecret.make(
            teamID: team, keyID: keyID, clientID: clientID, privateKey: key, issuedAt: clock.now(),
            lifetime: 3600)
    }

    /// A native authorization of `email` for `bundleID` (team A unless said), approved.
    func authorize(
        _ email: String = "alice@example.com", bundleID: String = appA, team: String? = teamA,
        scopes: [AppleScope] = [.fullName, .email], nonce: String? = nil, privateRelay: Bool = false
    ) throws -> AppleIDCredential {
        try provider.authorize(
            AppleAuthorizationRequest(
                account: AppleIDAccount(
                    email: email, givenName: "Alice", familyName: "Appleseed", privateRelay: privateRelay),
                bundleID: bundleID, teamID: team, requestedScopes: scopes, nonce: nonce))
    }

    /// `POST /auth/token` redeeming `code` for `clientID` with a valid secret.
    func redeem(_ code: String, clientID: String = appA, team: String = teamA) async throws -> HTTPResponse {
        try await postForm(
            "/auth/token",
            [
                "grant_type": "authorization_code", "code": code, "client_id": clientID,
                "client_secret": try secret(clientID, team: team),
            ])
    }

    /// An `AppleTokenClient` of team A over the fixture's transport.
    func tokenClient(team: String = teamA) -> AppleTokenClient {
        let (keyID, key) = team == teamB ? (keyB, developerKeyB) : (keyA, developerKeyA)
        return AppleTokenClient(
            transport: transport, baseURL: baseURL, teamID: team, keyID: keyID, privateKey: key, clock: clock)
    }

    /// The JWK Set `/auth/keys` serves now.
    func fetchKeys() async throws -> JWKSet { try JWKSet.parse(try await get("/auth/keys").body) }
}

/// Runs `body` against a fresh provider deployed as asked, with team A's and team B's developer
/// keys registered, and tears it down.
func withApple(
    _ deployment: Deployment, configuration: AppleConfiguration = .init(), seed: UInt64 = 1,
    _ body: @escaping @Sendable (AppleFixture) async throws -> Void
) async throws {
    let clock = ManualWallClock(now: testEpoch)
    func makeProvider(_ baseURL: String) -> AppleIDProvider {
        let provider = AppleIDProvider(
            baseURL: baseURL, clock: clock, random: SeededRandom(seed: seed), keySet: testKeySet,
            configuration: configuration)
        provider.registerDeveloperKey(teamID: teamA, keyID: keyA, publicKey: developerKeyA.publicKey)
        provider.registerDeveloperKey(teamID: teamB, keyID: keyB, publicKey: developerKeyB.publicKey)
        return provider
    }
    try await withDeployment(
        deployment, inProcessBaseURL: "https://appleid.test", loopbackPath: "/apple",
        make: { baseURL in makeProvider(baseURL) },
        respond: { provider, request in await provider.respond(to: request) },
        { provider, transport in
            try await body(
                AppleFixture(provider: provider, clock: clock, deployment: deployment, transport: transport))
        })
}

/// A provider for device-side tests that need no HTTP.
func makeProvider(configuration: AppleConfiguration = .init(), seed: UInt64 = 1) -> (
    AppleIDProvider, ManualWallClock
) {
    let clock = ManualWallClock(now: testEpoch)
    let provider = AppleIDProvider(
        baseURL: "https://appleid.test", clock: clock, random: SeededRandom(seed: seed), keySet: testKeySet,
        configuration: configuration)
    provider.registerDeveloperKey(teamID: teamA, keyID: keyA, publicKey: developerKeyA.publicKey)
    return (provider, clock)
}

/// The claims of a token, unverified, for looking at.
func claimsOf(_ token: String) throws -> JSONValue { try JWT.decodeUnverified(token).claims }

/// The header of a token, unverified.
func headerOf(_ token: String) throws -> JSONValue { try JWT.decodeUnverified(token).header }

extension HTTPResponse {
    /// The JSON body; fails the test by throwing when it is not JSON.
    func json() throws -> JSONValue { try jsonBody() }
}
