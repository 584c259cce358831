import CMicroHTTPD
import Foundation
public import HTTPCore
import Locking

/// An HTTP/1.1 server over libmicrohttpd that hands each request to an async handler.
///
/// The daemon runs its own IO thread(s) with epoll and suspend/resume: when a request's body
/// is complete its connection is suspended, the handler runs in one `Task` on Swift's pool,
/// and the connection resumes with the response. No daemon thread ever waits for a handler, so
/// a handler may call this same server (an issuer calling the Apple simulator on the same
/// listener) without deadlock.
///
/// A server may also have an immediate handler, asked first on the daemon thread that read the
/// request: what it answers is sent at once, with no suspension and no hand-off to another
/// thread (two thread wake-ups less per request); what it declines goes to the async handler.
///
/// The request a handler gets has `url` = `baseURL` + the request target: the listener's own
/// address, never the `Host` header, so that the issuer's identity cannot be spoofed by clients.
public final class MicroHTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    private let core: ServerCore
    private let lifecycle = Mutex(Lifecycle.idle)

    private enum Lifecycle {
        case idle
        case starting
        case running(DaemonHandle)
        case stopping(Task<Void, Never>)
        case stopped
    }

    public init(
        configuration: HTTPServerConfiguration = .init(), immediate: ImmediateHTTPHandler? = nil,
        handler: @escaping HTTPHandler
    ) {
        self.configuration = configuration
        self.core = ServerCore(
            handler: handler, immediate: immediate, maximumBodySize: configuration.maximumBodySize,
            maximumTargetLength: configuration.maximumTargetLength,
            maximumHeaderSize: configuration.connectionMemoryLimit / 2,
            keepsAbsoluteTargets: configuration.keepsAbsoluteTargets)
    }

    deinit {
        // Dropped without shutdown(): stop at once. In-flight handlers finish into the void.
        if case .running(let daemon) = lifecycle.withLock({ $0 }) {
            core.resumeAllForStop()
            MHD_stop_daemon(daemon.pointer)
        }
    }

    /// Binds the listening socket and starts serving.
    ///
    /// - Throws: `HTTPServerError` with `.addressInUse` when another socket has the port,
    ///   `.invalidConfiguration`, `.bindFailed`, `.startFailed` or `.alreadyStarted`.
    public func start() throws(HTTPServerError) {
        let claimed = lifecycle.withLock { state in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard claimed else { throw HTTPServerError(.alreadyStarted, "the server was started before") }
        do {
            let daemon = try startDaemon()
            lifecycle.withLock { $0 = .running(daemon) }
        } catch {
            lifecycle.withLock { $0 = .idle }
            throw error
        }
    }

    private func startDaemon() throws(HTTPServerError) -> DaemonHandle {
        let configuration = self.configuration
        guard configuration.maximumBodySize >= 0 else {
            throw HTTPServerError(.invalidConfiguration, "maximumBodySize must not be negative")
        }
        guard configuration.connectionMemoryLimit >= 4 * 1024 else {
            throw HTTPServerError(.invalidConfiguration, "connectionMemoryLimit must be at least 4 KiB")
        }
        guard configuration.connectionLimit >= max(1, configuration.ioThreads) else {
            throw HTTPServerError(.invalidConfiguration, "connectionLimit must be at least 1 per IO thread")
        }
        guard (1...configuration.connectionLimit).contains(configuration.perClientConnectionLimit) else {
            throw HTTPServerError(
                .invalidConfiguration, "perClientConnectionLimit must be between 1 and connectionLimit")
        }
        guard configuration.maximumTargetLength >= 1 else {
            throw HTTPServerError(.invalidConfiguration, "maximumTargetLength must be at least 1")
        }
        let (socket, isIPv6) = try ListeningSocket.open(host: configuration.host, port: configuration.port)
        let boundPort = Self.localPort(of: socket)
        let hostInURL = isIPv6 ? "[\(configuration.host)]" : configuration.host
        core.setAddress(baseURL: "http://\(hostInURL):\(boundPort)", port: boundPort)

        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let timeoutSeconds = UInt32(clamping: max(1, configuration.connectionTimeout.components.seconds))
        let context = Unmanaged.passUnretained(core).toOpaque()
        guard
            let daemon = sis_mhd_start_daemon(
                flags, socket, serverAccessCallback, context, serverRequestCompleted, context, serverURILog,
                context, timeoutSeconds, UInt32(clamping: max(1, configuration.ioThreads)),
                configuration.connectionMemoryLimit, UInt32(clamping: configuration.connectionLimit),
                UInt32(clamping: configuration.perClientConnectionLimit))
        else {
            close(socket)
            throw HTTPServerError(.startFailed, "libmicrohttpd could not start on \(core.baseURL)")
        }
        let reported = Int(sis_mhd_bind_port(daemon))
        precondition(
            reported == boundPort, "daemon reports port \(reported), bound \(boundPort)")
        return DaemonHandle(pointer: daemon)
    }

    private static func localPort(of socket: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard result == 0 else { return 0 }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
    }

    /// The port the server listens on (the real one when configured with 0); 0 before `start()`.
    public var port: Int { core.port }

    /// `http://HOST:PORT`, the origin that handlers see in `HTTPRequest.url`.
    public var baseURL: String { core.baseURL }

    /// Stops accepting connections, lets requests in progress finish (for at most the grace
    /// period; connections then carry `Connection: close`), then stops the daemon. Idempotent;
    /// concurrent calls all return once the server has stopped.
    public func shutdown() async {
        let core = self.core
        let grace = configuration.shutdownGracePeriod
        let task: Task<Void, Never>? = lifecycle.withLock { state in
            switch state {
            case .idle, .starting:
                state = .stopped
                return nil
            case .running(let daemon):
                let task = Task { await Self.stop(daemon, core: core, grace: grace) }
                state = .stopping(task)
                return task
            case .stopping(let task):
                return task
            case .stopped:
                return nil
            }
        }
        await task?.value
        lifecycle.withLock { state in
            if case .stopping = state { state = .stopped }
        }
    }

    private static func stop(_ daemon: DaemonHandle, core: ServerCore, grace: Duration) async {
        // Quiescing hands the listening socket back: closing it refuses new connections now.
        let listener = MHD_quiesce_daemon(daemon.pointer)
        if listener >= 0 { close(listener) }
        core.startDraining()
        _ = await core.requestsEnded.wait(until: { core.inFlight == 0 }, deadline: .now + grace)
        core.resumeAllForStop()
        MHD_stop_daemon(daemon.pointer)
    }
}
