import HTTPClient
public import HTTPCore
import HTTPServer

/// Where a service under test runs. Tests that take `arguments: Deployment.allCases` run their
/// body twice, once each way.
public enum Deployment: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Requests go straight to the service's `respond(to:)`.
    case inProcess
    /// Requests go through libcurl to a libmicrohttpd listener on 127.0.0.1.
    case loopback

    public var description: String { rawValue }
}

/// Runs `body` with a service deployed as asked, and tears the deployment down.
///
/// - Parameters:
///   - inProcessBaseURL: the base URL the service is given when called directly.
///   - loopbackPath: appended to the listener's URL to make the base URL over loopback.
///   - cookies: whether the loopback transport keeps a cookie jar (a browser) or none (an API client).
///   - make: builds the service for its base URL (services derive their identity from it).
///   - respond: how the service answers a request.
///   - respondImmediately: over loopback, the service's answer on the server's IO thread when
///     it has one (`MicroHTTPServer`'s immediate handler); in process every request goes to
///     `respond`, so a test run both ways covers both paths.
public func withDeployment<Service: Sendable>(
    _ deployment: Deployment, inProcessBaseURL: String, loopbackPath: String = "", cookies: Bool = false,
    make: (_ baseURL: String) throws -> Service,
    respond: @escaping @Sendable (Service, HTTPRequest) async -> HTTPResponse,
    respondImmediately: (@Sendable (Service, HTTPRequest) -> ImmediateAnswer?)? = nil,
    _ body: @escaping @Sendable (Service, any HTTPTransport) async throws -> Void
) async throws {
    switch deployment {
    case .inProcess:
        let service = try make(inProcessBaseURL)
        let transport = ClosureTransport { request throws(HTTPError) in
            let response = await respond(service, request)
            if response.dropsConnection {
                throw HTTPError(.connectionLost, "the service dropped the connection")
            }
            return response
        }
        try await withTimeout(.seconds(60)) { try await body(service, transport) }
    case .loopback:
        let slot = DeferredHandler()
        let server = MicroHTTPServer(
            immediate: { slot.respondImmediately(to: $0) }, handler: { await slot.respond(to: $0) })
        try server.start()
        do {
            let service = try make(server.baseURL + loopbackPath)
            var immediate: ImmediateHTTPHandler?
            if let respondImmediately {
                immediate = { request in respondImmediately(service, request) }
            }
            slot.set(immediate: immediate, handler: { request in await respond(service, request) })
            let transport = CurlTransport(cookieJar: cookies ? CookieJar() : nil)
            try await withTimeout(.seconds(60)) { try await body(service, transport) }
            await server.shutdown()
        } catch {
            await server.shutdown()
            throw error
        }
    }
}
