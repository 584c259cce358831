import Foundation
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

    /// The byte-wise encoder against Foundation's percent-encoding with the unreserved set of
    /// RFC 3986 §2.3, on random text with ASCII, multi-byte characters and every reserved
    /// character, in pairs whose names and values run into each other at `=` and `&`.
    @Test("encodes as Foundation does with the unreserved set")
    func matchesFoundation() {
        var unreserved = CharacterSet(charactersIn: "-._~")
        unreserved.formUnion(CharacterSet(charactersIn: "a"..."z"))
        unreserved.formUnion(CharacterSet(charactersIn: "A"..."Z"))
        unreserved.formUnion(CharacterSet(charactersIn: "0"..."9"))
        let alphabet = Array("aZ09-._~ !\"#$%&'()*+,/:;<=>?@[\\]^`{|}é€😀\u{7F}\n")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            func text() -> String {
                String(
                    (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                        alphabet.randomElement(using: &generator)!
                    })
            }
            let pairs = (0..<Int.random(in: 0...4, using: &generator)).map { _ in (text(), text()) }
            let expected = pairs.map {
                $0.0.addingPercentEncoding(withAllowedCharacters: unreserved)! + "="
                    + $0.1.addingPercentEncoding(withAllowedCharacters: unreserved)!
            }.joined(separator: "&")
            let parameters = FormParameters(pairs)
            #expect(FormURLEncoding.encode(parameters) == expected)
            #expect(FormURLEncoding.encodedBytes(parameters) == Array(expected.utf8))
            if let (name, _) = pairs.first {
                #expect(
                    FormURLEncoding.escape(name)
                        == name.addingPercentEncoding(withAllowedCharacters: unreserved))
            }
        }
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

    /// Empty pairs are skipped, a pair without `=` has an empty value, only the first `=` splits.
    @Test("pairs without values and empty pairs")
    func oddPairs() throws {
        let parameters = try FormURLEncoding.decode("&a&&b=&=c&d=e=f&é=ü%20&")
        #expect(parameters.pairs.map(\.name) == ["a", "b", "", "d", "é"])
        #expect(parameters.pairs.map(\.value) == ["", "", "c", "e=f", "ü "])
        #expect(try FormURLEncoding.decode("").isEmpty)
        #expect(try FormURLEncoding.decode("&&").isEmpty)
    }

    /// Media types compare by their lowercased essence.
    @Test("media type essence")
    func mediaTypeEssence() {
        #expect(MediaType.essence("application/x-www-form-urlencoded") == "application/x-www-form-urlencoded")
        #expect(MediaType.essence("Application/JSON; charset=utf-8") == "application/json")
        #expect(MediaType.essence(" text/html ") == "text/html")
        #expect(MediaType.essence("") == "")
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
        // A query that already ends in a separator gets no second one; a "?" in the fragment
        // is not a query.
        #expect(FormURLEncoding.appendingQuery(["a": "b"], to: "https://x/cb?") == "https://x/cb?a=b")
        #expect(FormURLEncoding.appendingQuery(["a": "b"], to: "https://x/cb?k=v&") == "https://x/cb?k=v&a=b")
        #expect(FormURLEncoding.appendingQuery(["a": "b"], to: "https://x/cb#f?g") == "https://x/cb?a=b#f?g")
        #expect(FormURLEncoding.appendingQuery([:], to: "https://x/cb#f") == "https://x/cb#f")
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

    /// Path and query of request targets and of URLs in other shapes.
    @Test("path and query of unusual URLs")
    func unusualURLParts() {
        let cases: [(url: String, path: String, query: String?, stripped: String)] = [
            ("/oauth/token?x=1", "/oauth/token", "x=1", "/oauth/token"),
            ("http://h:80?q", "/", "q", "http://h:80"),
            ("http://h/#f", "/", nil, "http://h/"),
            ("https://h/a/b?c=%3F#d?e", "/a/b", "c=%3F", "https://h/a/b"),
            ("com.example.app:/cb?code=x", "com.example.app:/cb", "code=x", "com.example.app:/cb"),
            ("a://b://c/d", "//c/d", nil, "a://b://c/d"),
            ("http://hé/ü?ß", "/ü", "ß", "http://hé/ü"),
            ("", "/", nil, ""),
            ("?", "/", "", ""),
        ]
        for (url, path, query, stripped) in cases {
            #expect(URLParts.path(of: url) == path, "\(url)")
            #expect(URLParts.query(of: url) == query, "\(url)")
            #expect(URLParts.stripQueryAndFragment(url) == stripped, "\(url)")
        }
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

    /// The quick origin agrees with the parsed one wherever URLComponents reads the URL.
    @Test("origin without parsing the URL")
    func quickOrigin() {
        let urls = [
            "https://Tenant.Example.com/oauth/token?x=1", "HTTP://127.0.0.1:8080", "http://127.0.0.1:8080/",
            "https://user:pw@host.example/x", "http://[::1]:9/cb#f", "com.example.app://auth/callback?code=x",
            "https://h?q", "https://h#f",
        ]
        for url in urls {
            #expect(URLParts.origin(of: url) == URLParts(url)?.origin, "\(url)")
        }
        for url in [
            "com.example.app:/cb", "/oauth/token", "", "://h/x", "1http://h/", "http:///x", "a b://h",
        ] {
            #expect(URLParts.origin(of: url) == nil, "\(url)")
        }
    }
}
