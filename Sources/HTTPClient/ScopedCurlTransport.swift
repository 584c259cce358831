public import HTTPCore

/// An `HTTPTransport` that sends through another `CurlTransport`'s libcurl multi loop with a
/// cookie jar of its own, made by `CurlTransport.scoped(to:)`.
///
/// It models one cookie store of a device (its system browser, or an ephemeral web session's
/// private store, RFC 6265 §5.3) without a thread or connection cache of its own: requests run
/// on the parent's loop, so they share its connections, time limits and `User-Agent`, while
/// their easy handles are attached to this jar's libcurl share only.
public struct ScopedCurlTransport: HTTPTransport {
    /// The jar every request of this transport reads and fills, or `nil` for no cookies.
    public let cookieJar: CookieJar?
    public let configuration: CurlTransportConfiguration
    private let loop: CurlMultiLoop
    private let pool: CurlEasyHandlePool

    init(loop: CurlMultiLoop, cookieJar: CookieJar?, configuration: CurlTransportConfiguration) {
        self.loop = loop
        self.cookieJar = cookieJar
        self.configuration = configuration
        // Few handles are kept per jar: a jar sends one page at a time, and a thousand jars
        // must not hold a thousand large pools.
        self.pool = CurlEasyHandlePool(share: cookieJar?.share, capacity: 2)
    }

    /// Sends the request on the parent's loop, cookies from and to this transport's jar.
    ///
    /// - Throws: the same `HTTPError` codes as `CurlTransport.send(_:)`.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await loop.perform(request, pool: pool, configuration: configuration)
    }
}
