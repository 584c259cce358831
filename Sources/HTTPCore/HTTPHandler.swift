/// What a server does with a request: any async function from request to response.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse

/// What a server decided about a request on the thread that read it.
public enum ImmediateAnswer: Sendable {
    /// The response, sent at once.
    case response(HTTPResponse)
    /// Work that has to wait (for the network, a timer, a long job), decided now, in the order
    /// requests arrive; it runs on Swift's task pool and its response is sent when it ends.
    case later(@Sendable () async -> HTTPResponse)
}

extension ImmediateAnswer {
    /// The same answer with `transform` applied to its response, now or when the work ends.
    public func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> ImmediateAnswer {
        switch self {
        case .response(let response): .response(transform(response))
        case .later(let work): .later { transform(await work()) }
        }
    }

    /// The response, waited for when it was left for later.
    public func response() async -> HTTPResponse {
        switch self {
        case .response(let response): response
        case .later(let work): await work()
        }
    }
}

/// A server's handler for the thread that read the request: it answers on the spot, or says
/// what is left for later, or (`nil`) hands the request to the server's `HTTPHandler`.
///
/// It must not block and must not call a server of the same process; returning `nil` must
/// leave no trace, since the same request then goes to the full handler.
public typealias ImmediateHTTPHandler = @Sendable (HTTPRequest) -> ImmediateAnswer?
