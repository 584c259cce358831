import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing

@Suite("Router over the wire")
struct RouterOverTheWireTests {
    static func router() -> Router {
        var router = Router()
        router.add(.post, "/oauth/token") { _ in .text("token") }
        router.add(
            .get, "/_admin/users/:id",
            withParameters: { _, parameters in .text("user \(parameters["id"] ?? "")") })
        return router
    }

    /// The same answers come back over a live server.
    @Test("404 and 405 over the wire")
    func live() async throws {
        try await withTestServer(router: Self.router()) { server in
            let transport = CurlTransport()
            let missing = try await transport.send(HTTPRequest(url: server.baseURL + "/nope"))
            #expect(missing.status == 404)
            let wrong = try await transport.send(
                HTTPRequest(method: .get, url: server.baseURL + "/oauth/token"))
            #expect(wrong.status == 405)
            #expect(wrong.headers["Allow"] == "POST")
            let user = try await transport.send(HTTPRequest(url: server.baseURL + "/_admin/users/abc"))
            #expect(user.bodyText == "user abc")
        }
    }
}

@Suite("Dropped connections")
struct DroppedConnectionTests {
    /// A handler answering `.droppedConnection` closes the connection: the client sees it lost.
    @Test("droppedConnection closes without an answer")
    func dropped() async throws {
        var router = Router()
        router.add(.post, "/oauth/token") { _ in .droppedConnection }
        try await withTestServer(router: router) { server in
            let error = await sendError(
                CurlTransport(), HTTPRequest(method: .post, url: server.baseURL + "/oauth/token"))
            #expect(
                error?.code == .connectionLost || error?.code == .connectionFailed,
                "\(String(describing: error))")
        }
    }
}
