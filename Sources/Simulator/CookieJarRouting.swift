import HTTPClient
import HTTPCore

/// Sends each request through one shared libcurl loop, with the cookie jar of the browser
/// session that made it.
///
/// A device's network conditions sit in front of every request its apps make, the system
/// browser's included; the session's transport (bound to its jar) rides along as a task-local
/// value, so one `ConditionedTransport` per device serves both the SDK (no cookies, like
/// `URLSession` with an ephemeral configuration) and the sheet.
struct CookieJarRoutingTransport: HTTPTransport {
    @TaskLocal static var sessionTransport: ScopedCurlTransport?

    let curl: CurlTransport

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        if let scoped = Self.sessionTransport { return try await scoped.send(request) }
        return try await curl.send(request)
    }
}

/// The transport of one browser session: the device's conditioned network, with the session's
/// jar-bound libcurl transport (made once per session, so its easy handles are reused).
struct BrowserSessionTransport: HTTPTransport {
    let jar: CookieJar
    let scoped: ScopedCurlTransport
    let network: any HTTPTransport

    init(jar: CookieJar, curl: CurlTransport, network: any HTTPTransport) {
        self.jar = jar
        scoped = curl.scoped(to: jar)
        self.network = network
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        // Cookies expired at the phone's clock are not sent (RFC 6265 §5.4).
        jar.removeExpired()
        // The sheet's page loads are the browser's, on behalf of the app that presented it.
        let initiator = RequestInitiator.sheet(presentedBy: RequestInitiator.current, engine: .lite)
        let result = await CookieJarRoutingTransport.$sessionTransport.withValue(scoped) {
            () async -> Result<HTTPResponse, HTTPError> in
            await RequestInitiator.$current.withValue(initiator) {
                () async -> Result<HTTPResponse, HTTPError> in
                do throws(HTTPError) {
                    return .success(try await network.send(request))
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }
}
