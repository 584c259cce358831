import Clocks
import Cryptography
import HTTPClient
import HTTPCore
import HTTPServer
import Issuer
import JSON
import TestSupport

/// Where a test's issuer runs. Every issuer test body runs in both, through `withIssuer`.
enum Deployment: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Requests go straight to `Issuer.respond(to:)`.
    case inProcess
    /// Requests go through libcurl to a libmicrohttpd listener on 127.0.0.1.
    case loopback

    var description: String { rawValue }
}

/// An issuer under test, its clock, and a way to talk to it.
struct IssuerFixture: Sendable {
    let issuer: Issuer
    let clock: ManualWallClock
    let deployment: Deployment
    let transport: any HTTPTransport

    var baseURL: String { issuer.identifier }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await transport.send(request)
    }

    func get(_ path: String, headers: HTTPHeaders = [:]) async throws(HTTPError) -> HTTPResponse {
        try await send(HTTPRequest(url: baseURL + path, headers: headers))
    }

    func postForm(_ path: String, _ parameters: FormParameters, headers: HTTPHeaders = [:])
        async throws(HTTPError)
        -> HTTPResponse
    {
        try await send(.form(url: baseURL + path, parameters: parameters, headers: headers))
    }

    func postJSON(_ path: String, _ body: JSONValue, method: HTTPMethod = .post) async throws(HTTPError)
        -> HTTPResponse
    {
        try await send(.json(method, url: baseURL + path, body: body))
    }
}

/// The time every issuer test starts at.
let testEpoch: Int64 = 1_800_000_000

/// Runs `body` against a fresh issuer deployed as asked, and tears it down.
func withIssuer(
    _ deployment: Deployment, tenant: Tenant = .default, seed: UInt64 = 1,
    _ body: @escaping @Sendable (IssuerFixture) async throws -> Void
) async throws {
    let clock = ManualWallClock(now: testEpoch)
    switch deployment {
    case .inProcess:
        let issuer = try Issuer(
            baseURL: "http://issuer.test", tenant: tenant, clock: clock, random: SeededRandom(seed: seed))
        let transport = ClosureTransport { request throws(HTTPError) in
            let response = await issuer.respond(to: request)
            if response.dropsConnection {
                throw HTTPError(.connectionLost, "the issuer dropped the connection")
            }
            return response
        }
        try await withTimeout(.seconds(60)) {
            try await body(
                IssuerFixture(issuer: issuer, clock: clock, deployment: deployment, transport: transport))
        }
    case .loopback:
        let slot = DeferredHandler()
        let server = MicroHTTPServer { request in await slot.respond(to: request) }
        try server.start()
        do {
            let issuer = try Issuer(
                baseURL: server.baseURL, tenant: tenant, clock: clock, random: SeededRandom(seed: seed))
            slot.set { request in await issuer.respond(to: request) }
            let transport = CurlTransport(cookieJar: CookieJar())
            try await withTimeout(.seconds(60)) {
                try await body(
                    IssuerFixture(issuer: issuer, clock: clock, deployment: deployment, transport: transport))
            }
            await server.shutdown()
        } catch {
            await server.shutdown()
            throw error
        }
    }
}
