import Foundation
import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing

/// Connections that send nothing cannot keep other clients out for long.
@Suite("MicroHTTPServer connection limits")
struct ConnectionLimitTests {
    /// With the default limits, 1,100 idle connections from one address (more than
    /// libmicrohttpd's own limit of about 1,020, which they used to fill for 30 s) take at most
    /// `perClientConnectionLimit` slots, and a client at another address is answered at once,
    /// long before the flood's connections time out.
    @Test("a flood from one address leaves room for another")
    func floodFromOneAddress() async throws {
        #if os(Linux)
            // 1,100 client sockets and up to 256 of the server's in one process: more than a
            // soft limit of 1,024 open files allows, so raise it towards the hard limit (never
            // lower it).
            var files = rlimit()
            if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < 4096 {
                files.rlim_cur = min(files.rlim_max, 4096)
                _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files)
            }
        #endif
        try await withTestServer(router: echoRouter()) { server in
            let opened = await RawSocket.openIdle(count: 1100, port: server.port, from: "127.0.0.2")
            #if os(Linux)
                // Linux answers on every address of 127.0.0.0/8: 127.0.0.2 is a second client.
                let flood = try #require(opened)
            #else
                guard let flood = opened else { return }
            #endif
            defer { RawSocket.closeAll(flood) }
            let started = ContinuousClock.now
            let response = try? await CurlTransport().send(
                HTTPRequest(url: server.baseURL + "/echo", timeout: .seconds(20)))
            #expect(response?.status == 200)
            // At once, but for a loaded machine; the flood's connections last 10 s.
            #expect(ContinuousClock.now - started < .seconds(8))
        }
    }

    /// Clients on this machine share 127.0.0.1, so a flood from there holds its address's
    /// slots until its connections time out: a client at the same address gets in once they
    /// have, within seconds of a 1 s timeout. Every loop is bounded.
    @Test("idle connections from the same address time out and let a client in")
    func floodFromTheSameAddress() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.connectionLimit = 16
        configuration.perClientConnectionLimit = 8
        configuration.connectionTimeout = .seconds(1)
        try await withTestServer(configuration: configuration, router: echoRouter()) { server in
            let flood = try #require(
                await RawSocket.openIdle(count: 24, port: server.port, from: "127.0.0.1"))
            defer { RawSocket.closeAll(flood) }
            let transport = CurlTransport()
            let started = ContinuousClock.now
            var answered: HTTPResponse?
            for _ in 0..<50 where answered == nil {
                answered = try? await transport.send(
                    HTTPRequest(url: server.baseURL + "/echo", timeout: .seconds(2)))
                if answered == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(answered?.status == 200)
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    /// Limits that cannot work are refused before binding.
    @Test("connection limits are checked")
    func badLimits() {
        var configuration = HTTPServerConfiguration()
        configuration.perClientConnectionLimit = configuration.connectionLimit + 1
        #expect(
            throws: HTTPServerError(
                .invalidConfiguration, "perClientConnectionLimit must be between 1 and connectionLimit")
        ) {
            try MicroHTTPServer(configuration: configuration) { _ in .text("x") }.start()
        }
        configuration = HTTPServerConfiguration()
        configuration.connectionLimit = 0
        #expect(
            throws: HTTPServerError(.invalidConfiguration, "connectionLimit must be at least 1 per IO thread")
        ) {
            try MicroHTTPServer(configuration: configuration) { _ in .text("x") }.start()
        }
    }
}
