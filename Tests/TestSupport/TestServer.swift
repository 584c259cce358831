public import HTTPCore
public import HTTPServer

/// Starts a server on a free loopback port, runs `body`, and shuts the server down, all within
/// `limit`.
public func withTestServer<T: Sendable>(
    configuration: HTTPServerConfiguration = .init(), limit: Duration = .seconds(20), router: Router,
    _ body: @escaping @Sendable (MicroHTTPServer) async throws -> T
) async throws -> T {
    let server = MicroHTTPServer(configuration: configuration) { request in await router.respond(to: request)
    }
    try server.start()
    do {
        let result = try await withTimeout(limit) { try await body(server) }
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// Sends and returns the error the transport threw, or `nil` when it succeeded.
public func sendError(_ transport: some HTTPTransport, _ request: HTTPRequest) async -> HTTPError? {
    do {
        _ = try await transport.send(request)
        return nil
    } catch {
        return error
    }
}

/// A router with an echo route: the response carries the request's method in `X-Method`, its
/// URL in `X-URL`, its headers as `X-Header-N: name: value`, and its body unchanged.
public func echoRouter() -> Router {
    var router = Router()
    let echo: HTTPHandler = { request in
        var headers: HTTPHeaders = ["X-Method": request.method.rawValue, "X-URL": request.url]
        for (index, field) in request.headers.enumerated() {
            headers.add(name: "X-Header-\(index)", value: "\(field.name): \(field.value)")
        }
        return HTTPResponse(status: 200, headers: headers, body: request.body)
    }
    for method: HTTPMethod in [.get, .post, .put, .delete, .patch, "PROPFIND"] {
        router.add(method, "/echo", echo)
    }
    return router
}

extension HTTPResponse {
    /// The request headers an echo route reported, in order.
    public var echoedHeaders: [String] {
        headers.fields.filter { $0.name.hasPrefix("X-Header-") }.map(\.value)
    }
}
