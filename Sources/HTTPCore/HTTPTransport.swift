/// Anything that can carry a request to a server and bring back its response.
///
/// The libcurl client implements it for real networks; later layers wrap it (recording, fault
/// injection, replay) without the caller knowing which one it holds. A transport never follows
/// redirects: an OAuth client must see the `Location` of the authorization response itself.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}

/// A transport made of a closure: handy for in-process servers and for tests.
public struct ClosureTransport: HTTPTransport {
    private let body: @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse) {
        self.body = body
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await body(request)
    }
}
