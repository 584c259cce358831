import Foundation

/// Creates the listening socket that the daemon is given, so that bind errors come back
/// with their `errno` (libmicrohttpd only says "failed") and port 0 resolves before start.
enum ListeningSocket {
    /// A non-blocking socket bound to `host:port` and listening, and whether it is IPv6.
    static func open(host: String, port: Int) throws(HTTPServerError) -> (descriptor: Int32, isIPv6: Bool) {
        guard (0...65535).contains(port) else {
            throw HTTPServerError(.invalidConfiguration, "port \(port) is not in 0...65535")
        }
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        let isIPv6: Bool
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
            isIPv6 = true
        } else {
            throw HTTPServerError(.invalidConfiguration, "host \"\(host)\" is not an IPv4 or IPv6 address")
        }
        let descriptor = socket(
            isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw HTTPServerError(.bindFailed, "socket(): \(String(cString: strerror(errno)))")
        }
        // Lets a restarted server take over a port whose old connections sit in TIME_WAIT; it
        // does not let two listeners share a port on Linux (that is SO_REUSEPORT, not set).
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isIPv6 {
            _ = setsockopt(
                descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = ipv6
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr = ipv4
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        /// Closes the socket and says why `step` failed. `EADDRINUSE` may come from either
        /// step: with SO_REUSEADDR two sockets can bind one port while neither listens yet, and
        /// the second to listen is the one refused.
        func failure(_ step: String) -> HTTPServerError {
            let code = errno
            close(descriptor)
            let reason = String(cString: strerror(code))
            if code == EADDRINUSE {
                return HTTPServerError(.addressInUse, "cannot listen on \(host):\(port): \(reason)")
            }
            return HTTPServerError(.bindFailed, "cannot \(step) \(host):\(port): \(reason)")
        }
        if bound != 0 { throw failure("bind") }
        guard listen(descriptor, 1024) == 0 else { throw failure("listen on") }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        return (descriptor, isIPv6)
    }
}
