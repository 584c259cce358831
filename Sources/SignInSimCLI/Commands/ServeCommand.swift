import AppleID
import Clocks
import Cryptography
import Dispatch
import Foundation
import HTTPClient
import HTTPCore
import HTTPServer
import Issuer
import Simulator
import WorldVocabulary

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SignInSimCLI {
    static let serveCommand = CommandSpec(
        name: "serve", abstract: "Run the embedded OpenID Connect issuer over HTTP until stopped.",
        discussion: """
            Listens on a loopback address, prints 'issuer: <url>' as the first line of standard
            output once requests are answered, and logs one line per request on standard error
            (method, path, status, milliseconds). SIGINT or SIGTERM lets requests in progress
            finish, then exits 0. The issuer's clock is the system clock plus an offset that
            POST /_admin/clock moves.
            """,
        options: [
            ServeOptions.hostOption, ServeOptions.portOption, ServeOptions.tenantOption,
            ServeOptions.seedOption,
        ],
        run: { arguments, context in
            let options = try ServeOptions(arguments)
            var tenant = Tenant.default
            if let path = options.tenantPath {
                do throws(TenantError) {
                    tenant = try TenantLoader.load(path: path)
                } catch {
                    throw CommandFailure("\(error.location): \(error.message)")
                }
            }
            return try await serve(options, tenant: tenant, context: context)
        })

    /// Serves until SIGINT or SIGTERM. Everything that can be refused has been by now.
    private static func serve(_ options: ServeOptions, tenant: Tenant, context: CLIContext) async throws
        -> ExitCode
    {
        // Before listening, so that a signal sent as soon as the URL is printed is not fatal.
        let signals = TerminationSignals()
        defer { signals.cancel() }
        // A server runs for hours: keep glibc handing freed memory back (HeapThresholds).
        if !HeapThresholds.holdAtDefaults() {
            context.writeError(
                "signinsim: could not fix glibc's mmap threshold; memory may grow more under load\n")
        }

        let writeLog = context.writeError
        // One clock: /_admin/clock on the issuer moves Apple's time too.
        let deployment: EmbeddedIdentityServer
        do {
            deployment = try await EmbeddedIdentityServer.start(
                tenant: tenant, host: options.host, port: options.port,
                ioThreads: ProcessInfo.processInfo.activeProcessorCount, clock: OffsetWallClock(),
                appleKeySeed: options.seed
            ) { request, response, elapsed in
                writeLog(RequestLogLine.format(request, response, elapsed: elapsed))
            }
        } catch {
            throw CommandFailure(error.message)
        }
        let issuer = deployment.issuer
        let apple = deployment.apple

        // Scripts and tests read these lines from a pipe: each is one unbuffered write.
        context.writeOut("issuer: \(issuer.identifier)\n")
        context.writeOut("apple: \(apple.baseURL)\n")

        let received = await signals.next()
        context.writeError("signinsim: \(TerminationSignals.name(of: received)) received; stopping\n")
        await deployment.shutdown()
        return .success
    }
}

/// `serve`'s options, checked.
struct ServeOptions: Sendable {
    var host = "127.0.0.1"
    var port = 0
    var tenantPath: String?
    /// Picks Apple's signing keys among the public test keys (`AppleKeySet.fixed(seed:)`).
    var seed: UInt64 = 0

    /// `--host <address>`.
    static let hostOption = OptionSpec.option(
        "host", value: "address", help: "A loopback IP address to listen on (default: 127.0.0.1).")
    /// `--port <port>`.
    static let portOption = OptionSpec.option(
        "port", value: "port", help: "The port to listen on; 0 picks a free one (default: 0).")
    /// `--tenant <file>`.
    static let tenantOption = OptionSpec.option(
        "tenant", value: "file",
        help: "A YAML or JSON tenant file that adds to or overrides the default tenant.")
    /// `--seed <n>`.
    static let seedOption = OptionSpec.option(
        "seed", value: "n",
        help: "Which of the public test keys Apple signs identity tokens with (default: 0).")

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if let host = arguments.value(Self.hostOption) {
            guard Self.isLoopbackAddress(host) else {
                throw UsageError(
                    "The value '\(host)' is invalid for '--host <address>': expected a loopback IP address "
                        + "such as 127.0.0.1 or ::1 (the admin API has no authentication)")
            }
            self.host = host
        }
        if let port = try arguments.integer(Self.portOption) {
            guard (0...65535).contains(port) else {
                throw UsageError("The value '\(port)' is invalid for '--port <port>': expected 0 to 65535")
            }
            self.port = Int(port)
        }
        tenantPath = arguments.value(Self.tenantOption)
        if let seed = try arguments.integer(Self.seedOption) {
            guard seed >= 0 else {
                throw UsageError("The value '\(seed)' is invalid for '--seed <n>': expected 0 or more")
            }
            self.seed = UInt64(seed)
        }
    }

    /// 127.0.0.0/8 or ::1, as IP literals (a name would need resolving, and could resolve elsewhere).
    static func isLoopbackAddress(_ host: String) -> Bool {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, host, &ipv6) == 1 {
            let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
            return bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
        }
        return false
    }
}

/// One access-log line: `POST /oauth/token 200 1.3ms`.
enum RequestLogLine {
    /// Paths are cut short so that a line stays one atomic pipe write (PIPE_BUF is 4096 bytes);
    /// queries are left out, since they carry codes and state.
    static let longestPath = 512

    static func format(_ request: HTTPRequest, _ response: HTTPResponse, elapsed: Duration) -> String {
        let (seconds, attoseconds) = elapsed.components
        let hundredths = seconds * 100_000 + attoseconds / 10_000_000_000_000
        let tenths = (hundredths + 5) / 10
        let status = response.dropsConnection ? "dropped" : String(response.status)
        var path = request.path
        if path.utf8.count > longestPath { path = path.utf8Prefix(longestPath) + "…" }
        return "\(request.method.rawValue) \(path) \(status) \(tenths / 10).\(tenths % 10)ms\n"
    }
}

/// SIGINT and SIGTERM delivered as values, so that `serve` can stop the server and exit 0
/// instead of being killed. While this exists both signals' default actions are off; each
/// arrives through a Dispatch source and is buffered until `next()` takes it.
///
/// Sendable by hand: every stored property is set once in `init`, the stream is Sendable and
/// Dispatch sources are safe to cancel from any thread.
final class TerminationSignals: @unchecked Sendable {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            // Dispatch sees the signal only if the default action (exit) does not run first.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Waits for the first signal.
    func next() async -> Int32 {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() ?? SIGTERM
    }

    func cancel() {
        for source in sources { source.cancel() }
    }

    static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(number)"
        }
    }
}
