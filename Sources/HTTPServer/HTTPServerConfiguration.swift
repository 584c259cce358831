/// Where a `MicroHTTPServer` listens and what it accepts.
public struct HTTPServerConfiguration: Sendable {
    /// An IPv4 or IPv6 literal; loopback by default.
    public var host: String = "127.0.0.1"
    /// 0 picks any free port; `MicroHTTPServer.port` tells which.
    public var port: Int = 0
    /// Largest request body accepted; a larger one is answered 413 without being stored.
    public var maximumBodySize: Int = 4 << 20
    /// How long `shutdown()` lets requests in progress finish.
    public var shutdownGracePeriod: Duration = .seconds(5)
    /// How long a connection may stay silent (idle keep-alive included) before it is closed.
    public var connectionTimeout: Duration = .seconds(30)
    /// libmicrohttpd threads doing the network IO and the immediate answers (other handlers
    /// run on Swift's task pool); 1 means a single polling thread, more means a pool sharing
    /// the listening socket.
    public var ioThreads: Int = 1

    public init() {}
}
