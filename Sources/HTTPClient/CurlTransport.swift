public import HTTPCore

/// An `HTTPTransport` over libcurl: real sockets, keep-alive, cookies, no redirects followed.
///
/// Requests run on a libcurl multi handle driven by a thread of the transport's own (see
/// `CurlMultiLoop`), never on Swift's cooperative pool, so a blocked network call cannot starve
/// other tasks. Any number of requests may be in flight; at most
/// `CurlTransportConfiguration.maximumConnections` connections are open, and idle ones are kept
/// for reuse. A 3xx response comes back as it is, its `Location` byte for byte (custom schemes
/// included), because an OAuth client must see the redirect itself.
public final class CurlTransport: HTTPTransport {
    /// The jar that every request of this transport reads and fills, or `nil` for no cookies.
    public let cookieJar: CookieJar?
    public let configuration: CurlTransportConfiguration
    private let loop: CurlMultiLoop
    private let pool: CurlEasyHandlePool

    /// - Parameters:
    ///   - cookieJar: `nil` turns cookies off entirely; the default is a new jar of this
    ///     transport's own. Pass one jar to several transports to share it, as apps share the
    ///     device's system browser cookies.
    ///   - configuration: time and size limits and the `User-Agent`.
    public init(cookieJar: CookieJar? = CookieJar(), configuration: CurlTransportConfiguration = .init()) {
        self.cookieJar = cookieJar
        self.configuration = configuration
        self.loop = CurlMultiLoop(maximumConnections: max(1, configuration.maximumConnections))
        self.pool = CurlEasyHandlePool(share: cookieJar?.share, capacity: 16)
    }

    /// Sends the request and waits for the whole response.
    ///
    /// - Throws: `HTTPError` with `.invalidURL`, `.connectionFailed`, `.connectionLost`,
    ///   `.timeout`, `.responseTooLarge`, `.cancelled` (the task was cancelled; the transfer is
    ///   stopped at once) or `.transport`.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        if Task.isCancelled { throw HTTPError(.cancelled, "the request was cancelled") }
        let transfer = try CurlTransfer(request: request, pool: pool, configuration: configuration)
        let loop = self.loop
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        return try result.get()
    }
}
