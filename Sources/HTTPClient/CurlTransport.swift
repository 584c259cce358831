public import HTTPCore

/// An `HTTPTransport` over libcurl: real sockets, keep-alive, cookies, no redirects followed.
///
/// Requests run on a libcurl multi handle driven by a thread of the transport's own (see
/// `CurlMultiLoop`), never on Swift's cooperative pool, so a blocked network call cannot starve
/// other tasks. That thread is also a task executor (`executor`): code that prefers it sends a
/// request and is resumed by the response on one thread, with no hand-off in between. Any
/// number of requests may be in flight; at most `CurlTransportConfiguration.maximumConnections`
/// connections are open, and idle ones are kept for reuse. A 3xx response comes back as it is,
/// its `Location` byte for byte (custom schemes included), because an OAuth client must see the
/// redirect itself.
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

    /// The thread that drives this transport's requests, as a task executor (SE-0417).
    ///
    /// Jobs run between rounds of libcurl work, so code that prefers this executor must not
    /// block: while it runs, no request of the transport makes progress.
    public var executor: any TaskExecutor { loop }

    /// Sends the request and waits for the whole response.
    ///
    /// - Throws: `HTTPError` with `.invalidURL`, `.connectionFailed`, `.connectionLost`,
    ///   `.timeout`, `.responseTooLarge`, `.cancelled` (the task was cancelled; the transfer is
    ///   stopped at once) or `.transport`.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await loop.perform(request, pool: pool, configuration: configuration)
    }

    /// A transport that runs on this transport's thread and connections but reads and fills
    /// `jar` instead (`nil`: no cookies).
    ///
    /// A simulator has a system-browser jar per device and a fresh jar per ephemeral web
    /// session: a `CurlTransport` for each would mean a thread and a connection cache for
    /// each. Scoped transports share one multi loop, so a thousand jars cost a thousand small
    /// handle pools, not a thousand threads. The scoped transport keeps the loop alive.
    public func scoped(to jar: CookieJar?) -> ScopedCurlTransport {
        ScopedCurlTransport(loop: loop, cookieJar: jar, configuration: configuration)
    }
}

extension CurlMultiLoop {
    /// Runs one request on the loop with a handle from `pool`, stopping it if the task is
    /// cancelled.
    func perform(
        _ request: HTTPRequest, pool: CurlEasyHandlePool, configuration: CurlTransportConfiguration
    ) async throws(HTTPError) -> HTTPResponse {
        if Task.isCancelled { throw HTTPError(.cancelled, "the request was cancelled") }
        let transfer = try CurlTransfer(request: request, pool: pool, configuration: configuration)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                submit(transfer)
            }
        } onCancel: {
            cancel(transfer)
        }
        return try result.get()
    }
}
