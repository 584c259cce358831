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
    /// Bytes each connection may use for the request line, the headers and the response
    /// headers (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a header block that does not fit is
    /// answered 431. libmicrohttpd zeroes the whole area before every request on a kept-alive
    /// connection, so it costs time per request: 32 KiB, libmicrohttpd's own default, holds
    /// headers up to about 16 KiB, more than browsers send (8 KiB is the common server limit).
    public var connectionMemoryLimit: Int = 32 * 1024

    public init() {}
}
