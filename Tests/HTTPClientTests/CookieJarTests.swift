import Clocks
import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing

@Suite("CookieJar")
struct CookieJarTests {
    /// A router that sets cookies on /login and reports the Cookie field it received on /whoami.
    private static func cookieRouter() -> Router {
        var router = Router()
        router.add(.get, "/login") { _ in
            var headers: HTTPHeaders = ["Set-Cookie": "sid=s3cr3t; Path=/; HttpOnly"]
            headers.add(name: "Set-Cookie", value: "theme=dark; Path=/prefs; Max-Age=3600")
            return HTTPResponse(status: 200, headers: headers)
        }
        router.add(.get, "/whoami") { request in .text(request.headers["Cookie"] ?? "") }
        router.add(.get, "/prefs/show") { request in .text(request.headers["Cookie"] ?? "") }
        return router
    }

    /// Cookies set by responses are readable with their attributes, and sent back.
    @Test("cookies from responses are stored, readable and sent back")
    func readable() async throws {
        try await withTestServer(router: Self.cookieRouter()) { server in
            let transport = CurlTransport()
            _ = try await transport.send(HTTPRequest(url: server.baseURL + "/login"))
            let jar = try #require(transport.cookieJar)
            let cookies = jar.cookies()
            let sid = try #require(cookies.first { $0.name == "sid" })
            #expect(sid.value == "s3cr3t")
            #expect(sid.httpOnly)
            #expect(sid.path == "/")
            #expect(sid.domain == "127.0.0.1")
            #expect(!sid.includeSubdomains)
            #expect(sid.isSessionCookie)
            let theme = try #require(cookies.first { $0.name == "theme" })
            #expect(theme.path == "/prefs")
            #expect(!theme.httpOnly)
            #expect(theme.expires > 0)

            #expect(
                try await transport.send(HTTPRequest(url: server.baseURL + "/whoami")).bodyText
                    == "sid=s3cr3t")
            let prefs = try await transport.send(HTTPRequest(url: server.baseURL + "/prefs/show")).bodyText
            #expect(prefs == "theme=dark; sid=s3cr3t")
        }
    }

    /// Two transports with their own jars do not see each other's cookies; two with one jar do.
    @Test("isolated jars stay apart; a shared jar is shared")
    func isolationAndSharing() async throws {
        try await withTestServer(router: Self.cookieRouter()) { server in
            let appA = CurlTransport()
            let appB = CurlTransport()
            _ = try await appA.send(HTTPRequest(url: server.baseURL + "/login"))
            #expect(try await appB.send(HTTPRequest(url: server.baseURL + "/whoami")).bodyText == "")
            #expect(appB.cookieJar?.cookies().isEmpty == true)

            let browserJar = CookieJar()
            let browserTab1 = CurlTransport(cookieJar: browserJar)
            let browserTab2 = CurlTransport(cookieJar: browserJar)
            _ = try await browserTab1.send(HTTPRequest(url: server.baseURL + "/login"))
            #expect(
                try await browserTab2.send(HTTPRequest(url: server.baseURL + "/whoami")).bodyText
                    == "sid=s3cr3t")

            let noCookies = CurlTransport(cookieJar: nil)
            _ = try await noCookies.send(HTTPRequest(url: server.baseURL + "/login"))
            #expect(try await noCookies.send(HTTPRequest(url: server.baseURL + "/whoami")).bodyText == "")
        }
    }

    /// removeAll empties the jar and nothing is sent afterwards; removeSessionCookies keeps
    /// persistent ones.
    @Test("removeAll and removeSessionCookies")
    func removal() async throws {
        try await withTestServer(router: Self.cookieRouter()) { server in
            let transport = CurlTransport()
            let jar = try #require(transport.cookieJar)
            _ = try await transport.send(HTTPRequest(url: server.baseURL + "/login"))
            #expect(jar.cookies().count == 2)
            jar.removeSessionCookies()
            #expect(jar.cookies().map(\.name) == ["theme"])
            jar.removeAll()
            #expect(jar.cookies().isEmpty)
            let prefs = try await transport.send(HTTPRequest(url: server.baseURL + "/prefs/show")).bodyText
            #expect(prefs == "")
        }
    }

    /// Inserted cookies are stored by libcurl's engine as given and sent to matching requests.
    @Test("insert stores a cookie that requests then carry")
    func insert() async throws {
        try await withTestServer(router: Self.cookieRouter()) { server in
            let transport = CurlTransport()
            let jar = try #require(transport.cookieJar)
            jar.insert(
                Cookie(
                    domain: "127.0.0.1", includeSubdomains: false, path: "/prefs", secure: false,
                    httpOnly: true,
                    expires: 4_096_250_880, name: "theme", value: "light"))
            let stored = try #require(jar.cookies().first)
            #expect(stored.name == "theme")
            #expect(stored.httpOnly)
            #expect(stored.expires == 4_096_250_880)
            #expect(
                try await transport.send(HTTPRequest(url: server.baseURL + "/prefs/show")).bodyText
                    == "theme=light")
            #expect(try await transport.send(HTTPRequest(url: server.baseURL + "/whoami")).bodyText == "")
        }
    }

    /// Expiry is judged by the jar's clock, not the machine's: moving it forward hides a
    /// persistent cookie, and `removeExpired` takes it out of libcurl's store, so requests no
    /// longer carry it even when the clock is set back.
    @Test("the jar's clock ages persistent cookies, in its list and in what requests carry")
    func expiryFollowsTheJarsClock() async throws {
        let realNow = SystemWallClock().now()
        let clock = ManualWallClock(now: realNow)
        try await withTestServer(router: Self.cookieRouter()) { server in
            let transport = CurlTransport(cookieJar: CookieJar(clock: clock))
            let jar = try #require(transport.cookieJar)
            for (name, expires) in [("theme", realNow + 3_600), ("font", Int64(0))] {
                jar.insert(
                    Cookie(
                        domain: "127.0.0.1", includeSubdomains: false, path: "/prefs", secure: false,
                        httpOnly: false, expires: expires, name: name, value: "x"))
            }
            #expect(Set(jar.cookies().map(\.name)) == ["theme", "font"])
            clock.advance(by: 7_200)
            #expect(jar.cookies().map(\.name) == ["font"])
            jar.removeExpired()
            clock.set(realNow)
            #expect(jar.cookies().map(\.name) == ["font"])
            #expect(
                try await transport.send(HTTPRequest(url: server.baseURL + "/prefs/show")).bodyText
                    == "font=x")
        }
    }

    /// Many tasks using one jar at once neither crash nor lose cookies.
    @Test("a jar is safe to use from many tasks at once")
    func threadSafety() async {
        let jar = CookieJar()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<32 {
                group.addTask {
                    jar.insert(
                        Cookie(
                            domain: "127.0.0.1", includeSubdomains: false, path: "/", secure: false,
                            httpOnly: false, expires: 0, name: "c\(index)", value: "\(index)"))
                    _ = jar.cookies()
                }
            }
        }
        #expect(jar.cookies().count == 32)
    }
}
