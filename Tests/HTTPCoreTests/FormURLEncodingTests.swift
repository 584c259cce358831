import HTTPCore
import Testing

@Suite("Form URL encoding")
struct FormURLEncodingTests {
    /// Reserved characters are escaped and come back unchanged.
    @Test("round-trips reserved characters")
    func roundTrips() throws {
        let parameters: FormParameters = [
            "redirect_uri": "com.example.app://auth/callback?x=1&y=2", "scope": "openid profile",
            "n": "Zoë+1",
        ]
        let encoded = FormURLEncoding.encode(parameters)
        #expect(encoded.contains("scope=openid%20profile"))
        #expect(encoded.contains("redirect_uri=com.example.app%3A%2F%2Fauth%2Fcallback%3Fx%3D1%26y%3D2"))
        #expect(try FormURLEncoding.decode(encoded) == parameters)
    }

    /// `+` means a space in form bodies (WHATWG URL §5.1).
    @Test("reads plus as space")
    func plusIsSpace() throws {
        #expect(try FormURLEncoding.decode("scope=openid+email")["scope"] == "openid email")
    }

    /// Repeated names are kept so that a server can refuse them (RFC 6749 §3.1).
    @Test("keeps repeated parameters")
    func keepsRepeats() throws {
        let parameters = try FormURLEncoding.decode("a=1&b=2&a=3")
        #expect(parameters.values(for: "a") == ["1", "3"])
        #expect(parameters.repeatedNames == ["a"])
        #expect(parameters.uniqueDictionary == nil)
    }

    /// A bad escape or bytes that are not UTF-8 are a malformed body.
    @Test("refuses bad escapes", arguments: ["a=%", "a=%zz", "a=%FF%FE", "%E2%82=x"])
    func refusesBadEscapes(text: String) {
        #expect(throws: HTTPError.self) { try FormURLEncoding.decode(text) }
    }

    /// Query parameters go before a fragment and after an existing query.
    @Test("appends queries correctly")
    func appendsQueries() {
        #expect(FormURLEncoding.appendingQuery(["a": "b"], to: "https://x/cb") == "https://x/cb?a=b")
        #expect(
            FormURLEncoding.appendingQuery(["a": "b"], to: "https://x/cb?k=v#f") == "https://x/cb?k=v&a=b#f")
    }
}

@Suite("HTTP messages")
struct HTTPMessageTests {
    /// Header lookup ignores case and keeps repeats in order.
    @Test("headers are case-insensitive and ordered")
    func headers() {
        var headers: HTTPHeaders = ["Set-Cookie": "a=1"]
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["SET-COOKIE"] == "a=1")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        headers["set-cookie"] = "c=3"
        #expect(headers.values(for: "Set-Cookie") == ["c=3"])
    }

    /// Path, query and the DPoP `htu` form come from the URL.
    @Test("request URL parts")
    func urlParts() throws {
        let request = HTTPRequest(url: "http://127.0.0.1:8080/oauth/token?a=1&b=x%20y#frag")
        #expect(request.path == "/oauth/token")
        #expect(request.query == "a=1&b=x%20y")
        #expect(request.urlWithoutQuery == "http://127.0.0.1:8080/oauth/token")
        #expect(try request.queryParameters()["b"] == "x y")
        #expect(HTTPRequest(url: "http://h").path == "/")
    }

    /// A form body is only read as a form when it says so.
    @Test("form bodies need the form content type")
    func formContentType() throws {
        let request = HTTPRequest.form(url: "http://h/t", parameters: ["grant_type": "refresh_token"])
        #expect(try request.formParameters()["grant_type"] == "refresh_token")
        var json = request
        json.headers["Content-Type"] = "application/json"
        #expect(throws: HTTPError.self) { try json.formParameters() }
    }

    /// JSON bodies are parsed when labelled JSON, including `+json` types.
    @Test("JSON bodies")
    func jsonBodies() throws {
        let request = HTTPRequest.json(url: "http://h/x", body: ["a": 1])
        #expect(try request.jsonBody()["a"] == 1)
        var problem = request
        problem.headers["Content-Type"] = "application/problem+json; charset=utf-8"
        #expect(try problem.jsonBody()["a"] == 1)
        problem.body = Array("{".utf8)
        #expect(throws: HTTPError.self) { try problem.jsonBody() }
    }

    /// Custom-scheme and loopback URLs are understood (RFC 8252 §7).
    @Test("URL parts for native redirect URIs")
    func nativeRedirects() throws {
        let custom = try #require(URLParts("com.example.app://auth/callback?code=x"))
        #expect(custom.scheme == "com.example.app")
        #expect(custom.host == "auth")
        #expect(custom.query == "code=x")
        let singleSlash = try #require(URLParts("com.example.app:/cb"))
        #expect(singleSlash.host == nil)
        #expect(singleSlash.path == "/cb")
        let loopback = try #require(URLParts("http://127.0.0.1:51234/callback"))
        #expect(loopback.isLoopback)
        #expect(loopback.port == 51234)
        #expect(URLParts("not a url") == nil)
    }
}
