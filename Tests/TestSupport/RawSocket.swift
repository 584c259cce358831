import Foundation

/// Plain TCP on loopback for tests that need bytes an HTTP library would not produce:
/// malformed requests, a forged `Host`, chunked uploads, or a server that hangs up midway.
///
/// Every call is bounded by a receive/send timeout and runs on a thread of its own, so a
/// blocking socket never occupies Swift's cooperative pool.
public enum RawSocket {
    /// Connects to 127.0.0.1:`port`, sends `request`, and reads until the peer closes or
    /// `timeout` passes without data. `nil` when the connection fails.
    ///
    /// The timeout only bounds a server that never closes: an answer ends at the close, so the
    /// default is as long as the suite's other bounds (a loaded machine answers late, not never).
    public static func exchange(port: Int, request: [UInt8], timeout: Duration = .seconds(20)) async
        -> [UInt8]?
    {
        await onThread {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            setTimeouts(descriptor, timeout)
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { return nil }
            guard sendAll(descriptor, request) else { return nil }
            return readUntilClosed(descriptor)
        }
    }

    /// Opens `count` TCP connections to 127.0.0.1:`port` that send nothing, from the source
    /// address `source` (Linux answers on every address of 127.0.0.0/8, so `127.0.0.2` is a
    /// second client as far as the server can tell). Returns their descriptors, for
    /// `closeAll`, or `nil` when the source address cannot be bound or a connection fails (the
    /// ones made are closed then). Each connect is bounded by `timeout`.
    public static func openIdle(count: Int, port: Int, from source: String, timeout: Duration = .seconds(3))
        async -> [Int32]?
    {
        await onThread {
            var opened: [Int32] = []
            opened.reserveCapacity(count)
            var failed = false
            for _ in 0..<count {
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard descriptor >= 0 else {
                    failed = true
                    break
                }
                opened.append(descriptor)
                setTimeouts(descriptor, timeout)
                var local = loopback(port: 0)
                guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                    failed = true
                    break
                }
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                var address = loopback(port: port)
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard bound == 0, connected == 0 else {
                    failed = true
                    break
                }
            }
            guard !failed else {
                closeAll(opened)
                return nil
            }
            return opened
        }
    }

    /// Closes connections `openIdle` made.
    public static func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors { close(descriptor) }
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    public static func canConnect(port: Int) async -> Bool {
        await onThread {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var address = loopback(port: port)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
    }

    /// A one-shot server on 127.0.0.1 that answers each of `connections` connections with
    /// `reply` once it has read the request headers, then closes. Returns the port; the thread
    /// ends after serving them or after `timeout` without a connection.
    public static func serveCanned(
        _ reply: [UInt8], connections: Int = 1, timeout: Duration = .seconds(5)
    ) -> Int? {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            return nil
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var local = sockaddr_in()
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        setTimeouts(listener, timeout)
        let thread = Thread {
            defer { close(listener) }
            for _ in 0..<connections {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                setTimeouts(client, timeout)
                _ = readHeaders(client)
                _ = sendAll(client, reply)
                close(client)
            }
        }
        thread.start()
        return Int(UInt16(bigEndian: local.sin_port))
    }

    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    private static func setTimeouts(_ descriptor: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private static func readUntilClosed(_ descriptor: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return result }
            result.append(contentsOf: buffer[..<count])
        }
    }

    private static func readHeaders(_ descriptor: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var byte: UInt8 = 0
        while !result.ends(with: Array("\r\n\r\n".utf8)) {
            guard recv(descriptor, &byte, 1, 0) == 1 else { return result }
            result.append(byte)
        }
        return result
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
