import CTLS
import Foundation
import HTTPCore
import Locking

/// The HTTPS side of a sheet proxy: WebKit sends each `https` request through a `CONNECT` tunnel
/// (RFC 9110 §9.3.6) to it, and it ends the TLS inside with a certificate of its own that the
/// sheet's store is told to accept, reads the HTTP/1.1 requests, and forwards each one as the
/// `http` side does: through the phone's network, whose client checks the real server's
/// certificate (mitmproxy's design). So an `https` issuer's pages are recorded, cookies and
/// bodies included, and meet the phone's network faults, as a loopback issuer's do.
///
/// libmicrohttpd cannot end a `CONNECT` in TLS, so this is a small server of its own: a thread
/// accepts, and a thread per tunnel reads and answers requests one at a time (a sheet opens a
/// handful of connections). Only HTTP/1.1 is spoken inside (no ALPN is offered).
final class TLSTunnelProxy: Sendable {
    private let listener: Int32
    let port: Int
    private let context: TLSContext
    private let forward: @Sendable (HTTPRequest) async -> HTTPResponse
    private let open = Mutex<Set<Int32>>([])
    private let stopped = Mutex(false)

    /// The most bytes of a request head, and of a request body, read from a tunnel.
    static let maximumHeadSize = 64 << 10
    static let maximumBodySize = 16 << 20

    init(forward: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) throws(WebKitEngineError) {
        guard let context = sis_tls_server_context() else {
            throw WebKitEngineError(.cannotStart, "the sheet proxy cannot make its TLS certificate")
        }
        self.context = TLSContext(pointer: context)
        self.forward = forward
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            throw WebKitEngineError(.cannotStart, "socket: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw WebKitEngineError(.cannotStart, "the sheet proxy cannot listen for tunnels: \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "sheet proxy tunnels"
        thread.start()
    }

    /// Stops accepting and closes every tunnel.
    func shutdown() {
        let wasStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open.withLock({ $0 }) { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            // A silent tunnel is closed after a minute.
            var limit = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            open.withLock { _ = $0.insert(fd) }
            let thread = Thread { [self] in
                // A browser that hangs up must not end the process (signinsim keeps SIGPIPE's
                // default for its own output): SIGPIPE is held back in this thread, and a write
                // to a closed tunnel fails with EPIPE instead.
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                serve(fd)
                open.withLock { _ = $0.remove(fd) }
                close(fd)
            }
            thread.name = "sheet proxy tunnel"
            thread.start()
        }
    }

    // MARK: One tunnel

    private func serve(_ fd: Int32) {
        var plain = PlainStream(fd: fd)
        guard let head = HTTPHead.read(from: &plain, limit: Self.maximumHeadSize) else { return }
        guard head.method == "CONNECT", let authority = head.target.split(separator: " ").first else {
            plain.write(
                Array(
                    "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        plain.write(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
        guard let ssl = SSL_new(context.pointer) else { return }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else {
            ERR_clear_error()
            return
        }
        var stream = TLSStream(ssl: ssl, pending: plain.pending)
        let origin = "https://" + Self.origin(of: String(authority))
        while let request = HTTPHead.read(from: &stream, limit: Self.maximumHeadSize) {
            guard let body = request.body(from: &stream, limit: Self.maximumBodySize) else { return }
            var message = HTTPRequest(
                method: HTTPMethod(rawValue: request.method), url: origin + request.target,
                headers: request.headers,
                body: body)
            message.headers.remove(name: "Transfer-Encoding")
            let forwarded = message
            let response = blocking { await self.forward(forwarded) }
            guard !response.dropsConnection else { return }
            stream.write(Self.serialized(response))
            if request.headers["Connection"]?.lowercased() == "close" { break }
        }
        SSL_shutdown(ssl)
    }

    /// `host` for port 443, else `host:port`.
    static func origin(of authority: String) -> String {
        authority.hasSuffix(":443") ? String(authority.dropLast(4)) : authority
    }

    static func serialized(_ response: HTTPResponse) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for field in response.headers
        where !["content-length", "transfer-encoding", "connection"].contains(
            field.name.lowercased())
        {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
    }

    /// The reason phrase: clients ignore it (RFC 9112 §4), so a few common ones, else none.
    private static func reason(_ status: Int) -> String {
        [
            200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
            304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
            401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error",
            502: "Bad Gateway", 503: "Service Unavailable",
        ][status] ?? ""
    }

    /// Runs `body` on Swift's task pool and waits for it on this (non-pool) thread.
    private func blocking(_ body: @escaping @Sendable () async -> HTTPResponse) -> HTTPResponse {
        let result = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let response = await body()
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .droppedConnection
    }
}

/// The server context, freed with the proxy.
private final class TLSContext: @unchecked Sendable {
    // Read-only after init; OpenSSL's contexts may be shared between threads once set up.
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_CTX_free(pointer) }
}

// MARK: Reading HTTP/1.1

/// A byte stream a request is read from.
protocol ByteStream {
    /// Up to `count` more bytes; empty at the end or on an error.
    mutating func read(_ count: Int) -> [UInt8]
    mutating func write(_ bytes: [UInt8])
    /// Bytes read but not used yet.
    var pending: [UInt8] { get set }
}

extension ByteStream {
    /// The next byte, from `pending` or the stream.
    mutating func next() -> UInt8? {
        if pending.isEmpty { pending = read(16 << 10) }
        guard !pending.isEmpty else { return nil }
        return pending.removeFirst()
    }

    /// Exactly `count` bytes, or nil when the stream ends first.
    mutating func exactly(_ count: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if pending.isEmpty { pending = read(min(64 << 10, count - bytes.count)) }
            guard !pending.isEmpty else { return nil }
            let take = min(pending.count, count - bytes.count)
            bytes += pending.prefix(take)
            pending.removeFirst(take)
        }
        return bytes
    }
}

/// The tunnel's socket before TLS: the `CONNECT` request and its answer.
struct PlainStream: ByteStream {
    let fd: Int32
    var pending: [UInt8] = []

    mutating func read(_ count: Int) -> [UInt8] {
        // One byte at a time before TLS: nothing of the handshake may be taken from the socket.
        var byte: UInt8 = 0
        return Glibc.read(fd, &byte, 1) == 1 ? [byte] : []
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// The tunnel after TLS.
struct TLSStream: ByteStream {
    let ssl: OpaquePointer
    var pending: [UInt8]

    mutating func read(_ count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = SSL_read(ssl, &buffer, Int32(count))
        guard got > 0 else {
            ERR_clear_error()
            return []
        }
        return Array(buffer[..<Int(got)])
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if written <= 0 {
                ERR_clear_error()
                return
            }
            offset += Int(written)
        }
    }
}

/// A request line and header block (RFC 9112 §2–§5).
struct HTTPHead {
    var method: String
    var target: String
    var headers: HTTPHeaders

    /// The next head of `stream`; nil at its end, or for one longer than `limit` or malformed.
    static func read(from stream: inout some ByteStream, limit: Int) -> HTTPHead? {
        var bytes: [UInt8] = []
        while !(bytes.count >= 4 && bytes.suffix(4).elementsEqual([13, 10, 13, 10])) {
            guard bytes.count < limit, let byte = stream.next() else { return nil }
            bytes.append(byte)
        }
        let lines = String(decoding: bytes.dropLast(4), as: UTF8.self).split(
            separator: "\r\n", omittingEmptySubsequences: false)
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(
                name: String(line[..<colon]),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPHead(method: String(parts[0]), target: String(parts[1]), headers: headers)
    }

    /// The request's body: `Content-Length` bytes, or the chunks of a chunked one (RFC 9112 §7.1);
    /// nil when it is larger than `limit` or cut short.
    func body(from stream: inout some ByteStream, limit: Int) -> [UInt8]? {
        if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            var body: [UInt8] = []
            while true {
                var line: [UInt8] = []
                while !(line.count >= 2 && line.suffix(2).elementsEqual([13, 10])) {
                    guard line.count < 1024, let byte = stream.next() else { return nil }
                    line.append(byte)
                }
                let size = String(decoding: line.dropLast(2), as: UTF8.self).split(separator: ";").first ?? ""
                guard let count = Int(size.trimmingCharacters(in: .whitespaces), radix: 16), count >= 0,
                    body.count + count <= limit
                else { return nil }
                guard let chunk = stream.exactly(count + 2) else { return nil }
                if count == 0 { return body }
                body += chunk.dropLast(2)
            }
        }
        guard let text = headers["Content-Length"] else { return [] }
        guard let length = Int(text), length >= 0, length <= limit else { return nil }
        return stream.exactly(length)
    }
}
