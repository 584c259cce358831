import Clocks
import Cryptography
import HTTPClient
import HTTPCore
import Issuer
import JSON
import TestSupport

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
    _ deployment: Deployment, tenant: Tenant = .default, seed: UInt64 = 1, limits: IssuerLimits = .default,
    _ body: @escaping @Sendable (IssuerFixture) async throws -> Void
) async throws {
    let clock = ManualWallClock(now: testEpoch)
    try await withDeployment(
        deployment, inProcessBaseURL: "http://issuer.test", cookies: true,
        make: { baseURL in
            try Issuer(
                baseURL: baseURL, tenant: tenant, clock: clock, random: SeededRandom(seed: seed),
                limits: limits)
        },
        respond: { issuer, request in await issuer.respond(to: request) },
        respondImmediately: { issuer, request in issuer.respondImmediately(to: request) },
        { issuer, transport in
            try await body(
                IssuerFixture(issuer: issuer, clock: clock, deployment: deployment, transport: transport))
        })
}
