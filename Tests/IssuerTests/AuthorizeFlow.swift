import Foundation
import HTTPClient
import HTTPCore
import TestSupport
import Testing

/// The default tenant's native app, and a valid authorization request for it.
enum NativeApp {
    static let clientID = "com.example.app"
    static let redirectURI = "com.example.app://auth/callback"
    static let loopbackRedirectURI = "http://127.0.0.1/callback"
    /// RFC 7636 appendix B.
    static let codeChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let state = "state-1234"

    /// A valid authorization request with `changes` applied (a `nil` value removes the parameter).
    static func authorization(_ changes: [String: String?] = [:]) -> FormParameters {
        var parameters: FormParameters = [
            "response_type": "code", "client_id": clientID, "redirect_uri": redirectURI,
            "scope": "openid profile email offline_access", "state": state, "nonce": "nonce-5678",
            "code_challenge": codeChallenge, "code_challenge_method": "S256",
        ]
        for (name, value) in changes { parameters[name] = value }
        return parameters
    }
}

/// The default tenant's first user.
enum Alice {
    static let email = "alice@example.com"
    static let password = "alice-password"
}

/// A browser on the issuer's pages, with a cookie jar of its own.
///
/// Over loopback the jar is libcurl's, in a transport of the browser's own; in process the
/// browser keeps the cookies itself from `Set-Cookie` and sends them back in `Cookie`.
struct Browser {
    let fixture: IssuerFixture
    private let transport: any HTTPTransport
    private let curl: CurlTransport?
    private var cookies: [String: String] = [:]

    init(_ fixture: IssuerFixture) {
        self.fixture = fixture
        switch fixture.deployment {
        case .inProcess:
            transport = fixture.transport
            curl = nil
        case .loopback:
            let curl = CurlTransport(cookieJar: CookieJar())
            transport = curl
            self.curl = curl
        }
    }

    mutating func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        if curl == nil, !cookies.isEmpty {
            let header = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: "; ")
            request.headers.add(name: "Cookie", value: header)
        }
        let response = try await transport.send(request)
        if curl == nil {
            for field in response.headers.values(for: "Set-Cookie") { record(field) }
        }
        return response
    }

    mutating func get(_ pathAndQuery: String) async throws -> HTTPResponse {
        try await send(HTTPRequest(url: fixture.baseURL + pathAndQuery))
    }

    mutating func post(_ path: String, _ parameters: FormParameters) async throws -> HTTPResponse {
        try await send(.form(url: fixture.baseURL + path, parameters: parameters))
    }

    /// `GET /authorize` with the parameters in the query.
    mutating func authorize(_ parameters: FormParameters = NativeApp.authorization()) async throws
        -> HTTPResponse
    {
        try await get("/authorize?" + FormURLEncoding.encode(parameters))
    }

    /// Submits a form as a browser would, to its action.
    mutating func submit(_ form: HTMLForm, _ values: [String: String] = [:], pressing button: String? = nil)
        async throws -> HTTPResponse
    {
        try await post(form.action, form.submission(values, pressing: button))
    }

    /// Goes through whatever pages come (login with the given credentials, consent approved)
    /// and returns the first response that is not one of them.
    mutating func finishSignIn(
        from response: HTTPResponse, email: String = Alice.email, password: String = Alice.password
    ) async throws -> HTTPResponse {
        var response = response
        for _ in 0..<3 where response.status == 200 {
            let form = try HTMLPage(response).form()
            switch form.action {
            case "/u/login": response = try await submit(form, ["username": email, "password": password])
            case "/u/consent": response = try await submit(form, pressing: "approve")
            default: return response
            }
        }
        return response
    }

    /// Authorizes, signs in and approves: returns the final redirect.
    mutating func signIn(
        _ parameters: FormParameters = NativeApp.authorization(), email: String = Alice.email,
        password: String = Alice.password
    ) async throws -> HTTPResponse {
        try await finishSignIn(from: try await authorize(parameters), email: email, password: password)
    }

    /// The session cookie's value, if the browser holds one.
    var sessionCookie: String? {
        if let curl { return curl.cookieJar?.cookies().first { $0.name == "signinsim_session" }?.value }
        return cookies["signinsim_session"]
    }

    /// Puts a session cookie in the jar, as if the issuer had set it.
    mutating func setSessionCookie(_ value: String) {
        if let jar = curl?.cookieJar {
            let host = URLParts(fixture.baseURL)?.host ?? "127.0.0.1"
            jar.insert(Cookie(domain: host, httpOnly: true, name: "signinsim_session", value: value))
        } else {
            cookies["signinsim_session"] = value
        }
    }

    /// Keeps `name=value` from a `Set-Cookie` (what precedes the first `;`); an empty value
    /// (as logout sends with `Max-Age=0`) removes the cookie.
    private mutating func record(_ setCookie: String) {
        let pair = setCookie.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
        let value = String(pair[pair.index(after: equals)...])
        cookies[name] = value.isEmpty ? nil : value
    }
}

/// The query parameters of a redirect, after checking it is a 302 to `redirectURI` that
/// repeats no parameter.
func redirectParameters(
    _ response: HTTPResponse, to redirectURI: String = NativeApp.redirectURI,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> [String: String] {
    #expect(response.status == 302, sourceLocation: sourceLocation)
    let location = try #require(response.headers["Location"], sourceLocation: sourceLocation)
    #expect(
        URLParts.stripQueryAndFragment(location) == URLParts.stripQueryAndFragment(redirectURI),
        "redirected to \(location)", sourceLocation: sourceLocation)
    #expect(response.headers["Cache-Control"] == "no-store", sourceLocation: sourceLocation)
    let query = try FormURLEncoding.decode(URLParts.query(of: location) ?? "")
    return try #require(
        query.uniqueDictionary, "a parameter repeats in \(location)", sourceLocation: sourceLocation)
}

/// Expects an authorization error sent back to the client: `error`, the request's `state`
/// and the issuer's `iss` (RFC 6749 §4.1.2.1, RFC 9207).
func expectAuthorizationError(
    _ response: HTTPResponse, _ error: String, fixture: IssuerFixture, state: String? = NativeApp.state,
    redirectURI: String = NativeApp.redirectURI, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let parameters = try redirectParameters(response, to: redirectURI, sourceLocation: sourceLocation)
    #expect(parameters["error"] == error, "\(parameters)", sourceLocation: sourceLocation)
    #expect(parameters["error_description"]?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(parameters["state"] == state, sourceLocation: sourceLocation)
    #expect(parameters["iss"] == fixture.baseURL, sourceLocation: sourceLocation)
    #expect(parameters["code"] == nil, sourceLocation: sourceLocation)
}

/// Expects the 400 page that ends an interaction without telling the client anything.
@discardableResult
func expectErrorPage(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> HTMLPage
{
    #expect(response.status == 400, sourceLocation: sourceLocation)
    #expect(response.headers["Location"] == nil, sourceLocation: sourceLocation)
    #expect(response.mediaType == "text/html", sourceLocation: sourceLocation)
    #expect(response.headers["Cache-Control"] == "no-store", sourceLocation: sourceLocation)
    let page = try HTMLPage(response)
    #expect(page.forms.isEmpty, sourceLocation: sourceLocation)
    #expect(page.errors.count == 1, sourceLocation: sourceLocation)
    return page
}

/// Expects the login page, and returns its form.
@discardableResult
func expectLoginPage(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> HTMLForm
{
    #expect(response.status == 200, sourceLocation: sourceLocation)
    let form = try HTMLPage(response).form()
    #expect(form.action == "/u/login", sourceLocation: sourceLocation)
    return form
}

/// Expects the consent page, and returns its form.
@discardableResult
func expectConsentPage(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> HTMLForm
{
    #expect(response.status == 200, sourceLocation: sourceLocation)
    let form = try HTMLPage(response).form()
    #expect(form.action == "/u/consent", sourceLocation: sourceLocation)
    return form
}
