import HTTPClient
import HTTPCore

/// Sends each request through one shared libcurl loop with the cookie jar of the browser
/// session that made it.
///
/// A device's network conditions sit in front of every request its apps make, the system
/// browser's included; the browser's jar rides along as a task-local value, so one
/// `ConditionedTransport` per device serves both the SDK (no cookies, like `URLSession`
/// with an ephemeral configuration) and the sheet (the session's jar).
struct CookieJarRoutingTransport: HTTPTransport {
    @TaskLocal static var jar: CookieJar?

    let curl: CurlTransport

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await curl.scoped(to: Self.jar).send(request)
    }
}

/// The transport a browser session with `jar` uses: the device's conditioned network, with
/// the jar set for the routing transport underneath.
struct BrowserSessionTransport: HTTPTransport {
    let jar: CookieJar
    let network: any HTTPTransport

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let result = await CookieJarRoutingTransport.$jar.withValue(jar) {
            () async -> Result<HTTPResponse, HTTPError> in
            do throws(HTTPError) {
                return .success(try await network.send(request))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
