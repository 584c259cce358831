/// Limits and identity of a `CurlTransport`.
public struct CurlTransportConfiguration: Sendable {
    /// Time limit of a whole exchange, connection included; `HTTPRequest.timeout` overrides it.
    public var timeout: Duration
    /// Time limit of connecting (TCP and TLS).
    public var connectTimeout: Duration
    /// Largest response body accepted; a larger one fails with `HTTPError.Code.responseTooLarge`
    /// as soon as it is announced or has arrived, without reading the rest.
    public var maximumResponseSize: Int
    /// `User-Agent` sent when the request has none.
    public var userAgent: String
    /// Most connections open at once; further requests wait inside libcurl for one to free up
    /// (their time limit runs while they wait). Also the number of idle connections kept.
    public var maximumConnections: Int

    public init(
        timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
        maximumResponseSize: Int = 16 << 20, userAgent: String = "SignInSim", maximumConnections: Int = 64
    ) {
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maximumResponseSize = maximumResponseSize
        self.userAgent = userAgent
        self.maximumConnections = maximumConnections
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a tiny positive limit never becomes "no limit" (0).
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(.up)
        return Int(max(1, min(milliseconds, Double(Int32.max))))
    }
}
