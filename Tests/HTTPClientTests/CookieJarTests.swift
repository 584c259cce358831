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
            #expect(jar.cookies(for: server.baseURL + "/prefs/show").map(\.name) == ["theme", "sid"])
            #expect(jar.cookies(for: server.baseURL + "/whoami").map(\.name) == ["sid"])
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

    /// setCookie applies the request URL's host and default path, honours Domain, Max-Age and
    /// deletion, and ignores a Domain the host does not belong to.
    @Test("setCookie reads a Set-Cookie value in the context of a URL")
    func setCookie() {
        let jar = CookieJar()
        jar.setCookie("a=1", for: "https://login.example.com/oauth/authorize?x=1")
        jar.setCookie(
            "b=2; Domain=.example.com; Secure; HttpOnly; Max-Age=60", for: "https://login.example.com/")
        jar.setCookie("c=3; Domain=other.example", for: "https://login.example.com/")
        jar.setCookie(
            "d=4; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/api", for: "http://login.example.com/")
        let cookies = jar.cookies()
        #expect(cookies.count == 3)
        let a = cookies.first { $0.name == "a" }
        #expect(a?.domain == "login.example.com")
        #expect(a?.includeSubdomains == false)
        #expect(a?.path == "/oauth")
        let b = cookies.first { $0.name == "b" }
        #expect(b?.domain == "example.com")
        #expect(b?.includeSubdomains == true)
        #expect(b?.secure == true)
        #expect(b?.httpOnly == true)
        #expect(cookies.first { $0.name == "d" }?.expires == 4_096_250_880)

        #expect(jar.cookies(for: "https://www.example.com/").map(\.name) == ["b"])
        #expect(jar.cookies(for: "http://login.example.com/oauth/x").map(\.name) == ["a"])
        #expect(Set(jar.cookies(for: "https://login.example.com/oauth/x").map(\.name)) == ["a", "b"])

        jar.setCookie("a=gone; Max-Age=0", for: "https://login.example.com/oauth/authorize")
        #expect(!jar.cookies().contains { $0.name == "a" })
    }

    /// Many tasks using one jar at once neither crash nor lose cookies.
    @Test("a jar is safe to use from many tasks at once")
    func threadSafety() async {
        let jar = CookieJar()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<32 {
                group.addTask {
                    jar.setCookie("c\(index)=\(index)", for: "http://127.0.0.1/")
                    _ = jar.cookies()
                }
            }
        }
        #expect(jar.cookies().count == 32)
    }
}
