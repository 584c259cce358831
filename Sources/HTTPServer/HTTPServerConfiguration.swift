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
    /// How long a connection may stay silent (idle keep-alive included) before it is closed
    /// (`MHD_OPTION_CONNECTION_TIMEOUT`, whole seconds, at least 1). It is what frees the slots
    /// of connections that send nothing, or stop halfway through their headers: clients on this
    /// machine all come from 127.0.0.1, so no per-address limit tells a flood from its victim,
    /// and the flood's idle connections last this long. libmicrohttpd counts silence only: a
    /// client that dribbles a byte now and then keeps its connection, and the limits below are
    /// what bound how many it can hold. A connection whose request a handler is working on is
    /// not silent (libmicrohttpd suspends it), however long the handler takes. 10 s is far
    /// longer than any local client waits between the bytes of a request, and short enough
    /// that a flood of idle connections is gone before a client's own 30 s time limit.
    public var connectionTimeout: Duration = .seconds(10)
    /// Most connections open at once (`MHD_OPTION_CONNECTION_LIMIT`); a pool of IO threads
    /// shares it out evenly. Beyond it the daemon stops accepting, and new clients wait in the
    /// listen backlog (1,024) until a connection closes: they are served late, not refused.
    /// libmicrohttpd's own default is about 1,020 (FD_SETSIZE − 4), which with the client
    /// sockets of a process that also drives its own server (the simulator does) reaches the
    /// usual limit of 1,024 open files. 512 is sixteen times what a load test here opens (wrk
    /// with 32 connections, a libcurl transport with at most 64) and leaves half the files free.
    public var connectionLimit: Int = 512
    /// Most connections open at once from one IP address
    /// (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`); more from that address are closed as soon as
    /// they are accepted. Half of `connectionLimit`, so that one address filling its share
    /// leaves the other half to every other address (IPv4 clients may come from any address of
    /// 127.0.0.0/8). It must not be higher than `connectionLimit`.
    public var perClientConnectionLimit: Int = 256
    /// Longest request target (path and query) accepted; a longer one is answered 414 URI Too
    /// Long (RFC 9110 §15.5.15) before the headers are looked at. RFC 9110 §4.1 asks for at
    /// least 8,000 octets; 8 KiB leaves most of a connection's memory to the headers and the
    /// response (which may repeat the target in `Location`).
    public var maximumTargetLength: Int = 8 * 1024
    /// libmicrohttpd threads doing the network IO and the immediate answers (other handlers
    /// run on Swift's task pool); 1 means a single polling thread, more means a pool sharing
    /// the listening socket.
    public var ioThreads: Int = 1
    /// Bytes each connection may use for the request line, the headers and the response
    /// headers (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`). A request line and header block larger
    /// than half of it is answered 431 Request Header Fields Too Large (RFC 6585 §5), so that
    /// the other half is left for the response's headers. libmicrohttpd zeroes the whole area
    /// before every request on a kept-alive connection, so it costs time per request: 32 KiB,
    /// libmicrohttpd's own default, takes headers up to 16 KiB, more than browsers send (8 KiB
    /// is the common server limit).
    public var connectionMemoryLimit: Int = 32 * 1024

    /// Whether a request in absolute form (`GET http://issuer.test/login HTTP/1.1`, RFC 9112
    /// §3.2.2) reaches the handler with that URL, as a forward proxy needs. Otherwise (the
    /// default) the handler gets the listener's own base URL with the target's path and query,
    /// so that no client can make the server believe it is another host.
    public var keepsAbsoluteTargets = false

    public init() {}
}
