import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing

@Suite("ScopedCurlTransport")
struct ScopedCurlTransportTests {
    /// Sets a cookie named after the query on /set?name=value, reports the Cookie field on /show.
    private static func router() -> Router {
        var router = Router()
        router.add(.get, "/set") { request in
            let query = request.query ?? "empty=1"
            return HTTPResponse(status: 204, headers: ["Set-Cookie": "\(query); Path=/"])
        }
        router.add(.get, "/show") { request in .text(request.headers["Cookie"] ?? "") }
        return router
    }

    /// Two scoped transports over one CurlTransport keep their cookies apart, and apart from
    /// the parent's jar.
    @Test("scoped transports over one loop keep separate jars")
    func separateJars() async throws {
        try await withTestServer(router: Self.router()) { server in
            let parent = CurlTransport()
            let deviceA = parent.scoped(to: CookieJar())
            let deviceB = parent.scoped(to: CookieJar())
            _ = try await deviceA.send(HTTPRequest(url: server.baseURL + "/set?sid=a"))
            _ = try await deviceB.send(HTTPRequest(url: server.baseURL + "/set?sid=b"))
            #expect(try await deviceA.send(HTTPRequest(url: server.baseURL + "/show")).bodyText == "sid=a")
            #expect(try await deviceB.send(HTTPRequest(url: server.baseURL + "/show")).bodyText == "sid=b")
            #expect(try await parent.send(HTTPRequest(url: server.baseURL + "/show")).bodyText == "")
            #expect(deviceA.cookieJar?.cookies().map(\.value) == ["a"])
            #expect(parent.cookieJar?.cookies().isEmpty == true)
        }
    }

    /// A jar given to two scoped transports is seen by both, and by the parent when it is the
    /// parent's own jar.
    @Test("a shared jar is seen by every scoped transport holding it")
    func sharedJar() async throws {
        try await withTestServer(router: Self.router()) { server in
            let parent = CurlTransport()
            let browser = CookieJar()
            let tab1 = parent.scoped(to: browser)
            let tab2 = parent.scoped(to: browser)
            _ = try await tab1.send(HTTPRequest(url: server.baseURL + "/set?sso=yes"))
            #expect(try await tab2.send(HTTPRequest(url: server.baseURL + "/show")).bodyText == "sso=yes")

            let parentJar = try #require(parent.cookieJar)
            _ = try await parent.scoped(to: parentJar).send(HTTPRequest(url: server.baseURL + "/set?p=1"))
            #expect(try await parent.send(HTTPRequest(url: server.baseURL + "/show")).bodyText == "p=1")
        }
    }

    /// A scoped transport without a jar neither stores nor sends cookies.
    @Test("scoped to nil: no cookies")
    func noJar() async throws {
        try await withTestServer(router: Self.router()) { server in
            let transport = CurlTransport().scoped(to: nil)
            _ = try await transport.send(HTTPRequest(url: server.baseURL + "/set?sid=x"))
            #expect(try await transport.send(HTTPRequest(url: server.baseURL + "/show")).bodyText == "")
        }
    }

    /// Many jars, requests in flight together, one loop: each jar ends with its own cookie only.
    @Test("fifty jars in parallel over one loop")
    func manyJarsConcurrently() async throws {
        try await withTestServer(router: Self.router()) { server in
            let parent = CurlTransport()
            let transports = (0..<50).map { _ in parent.scoped(to: CookieJar()) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, transport) in transports.enumerated() {
                    group.addTask {
                        _ = try await transport.send(HTTPRequest(url: server.baseURL + "/set?n=\(index)"))
                    }
                }
                try await group.waitForAll()
            }
            for (index, transport) in transports.enumerated() {
                #expect(transport.cookieJar?.cookies().map(\.value) == ["\(index)"])
            }
        }
    }

    /// The scoped transport keeps the loop working after the parent is gone.
    @Test("the scoped transport outlives its parent")
    func outlivesParent() async throws {
        try await withTestServer(router: Self.router()) { server in
            let jar = CookieJar()
            let transport = CurlTransport(cookieJar: nil).scoped(to: jar)
            _ = try await transport.send(HTTPRequest(url: server.baseURL + "/set?k=v"))
            #expect(try await transport.send(HTTPRequest(url: server.baseURL + "/show")).bodyText == "k=v")
        }
    }
}
