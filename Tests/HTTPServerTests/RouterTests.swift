import HTTPCore
import TestSupport
import Testing

@Suite("Router")
struct RouterTests {
    private static let base = "http://127.0.0.1:1"

    static func router() -> Router {
        var router = Router()
        router.add(.post, "/oauth/token") { _ in .text("token") }
        router.add(.get, "/oauth/token/info") { _ in .text("info") }
        router.add(
            .get, "/_admin/users/:id",
            withParameters: { _, parameters in .text("user " + (parameters["id"] ?? "?")) })
        router.add(
            .delete, "/_admin/users/:id",
            withParameters: { _, parameters in .text("deleted " + (parameters["id"] ?? "?")) })
        router.add(.get, "/_admin/users/me") { _ in .text("me") }
        router.add(
            .get, "/static/*",
            withParameters: { _, parameters in .text("static " + (parameters.remainder ?? "?")) })
        router.add(
            .get, "/static/special/*",
            withParameters: { _, parameters in .text("special " + (parameters.remainder ?? "?")) })
        return router
    }

    private static func body(_ router: Router, _ method: HTTPMethod, _ path: String) async -> String? {
        await router.respond(to: HTTPRequest(method: method, url: base + path)).bodyText
    }

    /// An unknown path is 404 with a JSON error body.
    @Test("unknown path gives 404")
    func notFound() async throws {
        let response = await Self.router().respond(to: HTTPRequest(url: Self.base + "/nope"))
        #expect(response.status == 404)
        #expect(try response.jsonBody()["error"] == "not_found")
    }

    /// A known path with another method is 405 and lists the allowed methods, HEAD with GET.
    @Test("known path, other method gives 405 with Allow")
    func methodNotAllowed() async {
        let router = Self.router()
        let token = await router.respond(to: HTTPRequest(method: .get, url: Self.base + "/oauth/token"))
        #expect(token.status == 405)
        #expect(token.headers["Allow"] == "POST")
        let user = await router.respond(to: HTTPRequest(method: .put, url: Self.base + "/_admin/users/7"))
        #expect(user.status == 405)
        #expect(user.headers["Allow"] == "GET, HEAD, DELETE")
    }

    /// Named segments capture decoded values; an exact route beats a pattern.
    @Test("named segments are captured, exact routes win")
    func namedSegments() async {
        let router = Self.router()
        #expect(await Self.body(router, .get, "/_admin/users/42") == "user 42")
        #expect(await Self.body(router, .get, "/_admin/users/a%20b") == "user a b")
        #expect(await Self.body(router, .delete, "/_admin/users/42") == "deleted 42")
        #expect(await Self.body(router, .get, "/_admin/users/me") == "me")
        #expect(await router.respond(to: HTTPRequest(url: Self.base + "/_admin/users/1/x")).status == 404)
        #expect(await router.respond(to: HTTPRequest(url: Self.base + "/_admin/users/")).status == 404)
    }

    /// A trailing /* matches the prefix and below, longest prefix first.
    @Test("prefix routes match below the prefix, longest first")
    func prefix() async {
        let router = Self.router()
        #expect(await Self.body(router, .get, "/static/css/site.css") == "static css/site.css")
        #expect(await Self.body(router, .get, "/static") == "static ")
        #expect(await Self.body(router, .get, "/static/special/x") == "special x")
        #expect(await router.respond(to: HTTPRequest(url: Self.base + "/staticx")).status == 404)
    }

    /// HEAD falls back to GET, without the body but with its length.
    @Test("HEAD falls back to GET without a body")
    func head() async {
        let response = await Self.router().respond(
            to: HTTPRequest(method: .head, url: Self.base + "/oauth/token/info"))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Length"] == "4")
    }
}
