/// A fault applied to the next `remaining` requests that match: what the app sees as
/// `URLError.cannotConnectToHost`, `URLError.networkConnectionLost`, or an HTTP 5xx status
/// (RFC 9110 §15.6).
public struct NetworkFault: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// No connection is made: the server never sees the request.
        case connectionFailure
        /// The server processes the request, then its response is lost on the way back
        /// (field bug 2): the client sees `connectionLost` although the server acted.
        case responseLost
        /// An HTTP error status (`500`–`599`) answered without reaching the server, as a
        /// failing load balancer does.
        case serverError(status: Int)
        /// The request reaches the server twice, and the app gets the second answer: a
        /// connection dropped before the answer came back, and the client or a proxy sent the
        /// request again (libcurl does so on a reused connection, POSTs included).
        case resent
    }

    public var kind: Kind
    public var match: RequestMatch
    /// How many more requests this fault applies to.
    public var remaining: Int

    public init(_ kind: Kind, count: Int, matching match: RequestMatch = .any) {
        precondition(count > 0, "a fault must apply to at least one request")
        if case .serverError(let status) = kind {
            precondition((500..<600).contains(status), "injected status \(status) is not 5xx")
        }
        self.kind = kind
        self.match = match
        remaining = count
    }

    public var description: String {
        let name =
            switch kind {
            case .connectionFailure: "connection failure"
            case .responseLost: "response lost"
            case .serverError(let status): "status \(status)"
            case .resent: "resent"
            }
        return "\(name) for the next \(remaining) (\(match))"
    }
}
