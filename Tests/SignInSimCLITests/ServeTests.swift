import Foundation
import HTTPClient
import HTTPCore
import HTTPServer
import JSON
import TestSupport
import Testing

/// `signinsim serve` run as a user runs it: the built binary, its output read from pipes,
/// stopped with signals.
@Suite("signinsim serve")
struct ServeTests {
    /// Starts `signinsim serve` and returns it with the issuer URL from its first line.
    static func startServe(_ arguments: [String] = []) async throws -> (RunningProcess, String) {
        let serve = try RunningProcess.signInSim(["serve"] + arguments)
        let line = try await serve.firstLine()
        let prefix = "issuer: "
        try #require(line.hasPrefix(prefix), "first line: \(line)")
        return (serve, String(line.dropFirst(prefix.count)))
    }

    static func port(of url: String) -> Int? { url.split(separator: ":").last.flatMap { Int($0) } }

    static let transport = CurlTransport(cookieJar: nil)

    static func getJSON(_ url: String) async throws -> JSONValue {
        let response = try await transport.send(HTTPRequest(url: url))
        #expect(response.status == 200, "GET \(url)")
        return try response.jsonBody()
    }

    /// The first stdout line is the issuer URL; discovery answers at it; each request is logged on
    /// stderr; SIGTERM stops the server with exit 0.
    @Test("serves discovery, logs requests, stops on SIGTERM")
    func servesAndStops() async throws {
        let (serve, issuer) = try await Self.startServe()
        #expect(issuer.hasPrefix("http://127.0.0.1:"))
        #expect((Self.port(of: issuer) ?? 0) > 0)

        let discovery = try await Self.getJSON(issuer + "/.well-known/openid-configuration")
        #expect(discovery["issuer"] == .string(issuer))
        #expect(discovery["jwks_uri"] == .string(issuer + "/.well-known/jwks.json"))
        let keys = try await Self.getJSON(issuer + "/.well-known/jwks.json")
        #expect(keys["keys"]?.arrayValue?.count == 1)

        let logged = try await serve.standardErrorLine(containing: "/.well-known/openid-configuration")
        #expect(
            logged.wholeMatch(of: /GET \/\.well-known\/openid-configuration 200 \d+\.\dms/) != nil,
            "\(logged)")
        _ = try await serve.standardErrorLine(containing: "GET /.well-known/jwks.json 200 ")

        serve.send(SIGTERM)
        let exit = try await serve.waitForExit()
        #expect(exit.isCleanExit, "\(exit); stderr: \(serve.standardError)")
        #expect(serve.standardOutput == "issuer: \(issuer)\napple: \(issuer)/apple\n")
        #expect(serve.standardError.hasSuffix("signinsim: SIGTERM received; stopping\n"))
    }

    /// SIGINT (Ctrl-C) stops it with exit 0 too.
    @Test("stops on SIGINT")
    func stopsOnInterrupt() async throws {
        let (serve, issuer) = try await Self.startServe()
        _ = try await Self.getJSON(issuer + "/.well-known/openid-configuration")
        serve.send(SIGINT)
        let exit = try await serve.waitForExit()
        #expect(exit.isCleanExit, "\(exit); stderr: \(serve.standardError)")
        #expect(serve.standardError.hasSuffix("signinsim: SIGINT received; stopping\n"))
        await #expect(throws: HTTPError.self) {
            _ = try await Self.transport.send(HTTPRequest(url: issuer + "/.well-known/jwks.json"))
        }
    }

    /// A request in progress when SIGTERM arrives still gets its answer before the process exits.
    @Test("finishes a request in flight")
    func finishesInFlight() async throws {
        let (serve, issuer) = try await Self.startServe()
        let armed = try await Self.transport.send(
            .json(
                .post, url: issuer + "/_admin/faults",
                body: ["fault": "http-delay", "path": "/.well-known/jwks.json", "delay_ms": 1500, "count": 1])
        )
        #expect(armed.status == 201)
        let slow = Task { try await Self.transport.send(HTTPRequest(url: issuer + "/.well-known/jwks.json")) }
        // The slow request is in flight once it has taken its fault, the only one armed.
        try await poll(until: "the slow request to take its delay fault", within: .seconds(30)) {
            let listed = try await Self.transport.send(HTTPRequest(url: issuer + "/_admin/faults"))
            return try JSONValue.parse(listed.bodyText ?? "")["faults"]?.arrayValue?.isEmpty == true
        }
        serve.send(SIGTERM)
        let response = try await withTimeout(.seconds(10)) { try await slow.value }
        #expect(response.status == 200)
        let exit = try await serve.waitForExit()
        #expect(exit.isCleanExit, "\(exit)")
        let logged = try await serve.standardErrorLine(containing: "GET /.well-known/jwks.json")
        #expect(logged.hasPrefix("GET /.well-known/jwks.json 200 1"), "\(logged)")
    }

    /// `--tenant` adds a client, a user and an API that the admin API and discovery show.
    @Test("--tenant adds a client and a user")
    func tenantFile() async throws {
        let path = try TemporaryDirectory.shared.write(
            """
            clients:
              - client_id: com.partner.app
                redirect_uris: ["com.partner.app://cb"]
                require_dpop: true
            users:
              - {email: carol@example.com, password: carol-password, user_id: auth0|carol}
            audiences:
              - {identifier: "https://billing.example.com", scopes: [read:invoices]}
            """, named: "serve-tenant.yaml")
        let (serve, issuer) = try await Self.startServe(["--tenant", path])
        let clients = try await Self.getJSON(issuer + "/_admin/clients")
        let ids = clients["clients"]?.arrayValue?.compactMap { $0["client_id"]?.stringValue }
        #expect(ids == ["com.example.app", "com.partner.app"])
        let partner = clients["clients"]?.arrayValue?.last
        #expect(partner?["require_dpop"] == true)
        let users = try await Self.getJSON(issuer + "/_admin/users")
        #expect(users["users"]?.arrayValue?.contains { $0["email"] == "carol@example.com" } == true)
        let discovery = try await Self.getJSON(issuer + "/.well-known/openid-configuration")
        #expect(discovery["scopes_supported"]?.arrayValue?.contains("read:invoices") == true)
        serve.send(SIGTERM)
        #expect(try await serve.waitForExit().isCleanExit)
    }

    /// The served issuer runs on an offset clock that `/_admin/clock` moves.
    @Test("/_admin/clock moves the served clock")
    func clock() async throws {
        let (serve, issuer) = try await Self.startServe()
        let before = Int64(Date().timeIntervalSince1970)
        let response = try await Self.transport.send(
            .json(.post, url: issuer + "/_admin/clock", body: ["advance": 3600]))
        let after = Int64(Date().timeIntervalSince1970)
        #expect(response.status == 200)
        let now = try #require(try response.jsonBody()["now"]?.int64Value)
        #expect((before + 3600...after + 3600).contains(now))
        serve.send(SIGTERM)
        #expect(try await serve.waitForExit().isCleanExit)
    }

    /// Issue 27: a path over the log's 512 bytes cut inside a multi-byte character made the
    /// access-log line force-unwrap `nil` and killed the server. The line now ends at the last
    /// whole character, and the server keeps answering.
    @Test("a long path cut inside a UTF-8 character is logged, not fatal")
    func longMultiBytePath() async throws {
        let (serve, issuer) = try await Self.startServe()
        let port = try #require(Self.port(of: issuer))
        // "/" and 510 "a" are 511 bytes: byte 512 is the first of "é"'s two.
        let path = "/" + String(repeating: "a", count: 510) + "é"
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        let answer = try #require(await RawSocket.exchange(port: port, request: request))
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 404"))
        let logged = try await serve.standardErrorLine(containing: "GET /aaaa")
        #expect(logged.wholeMatch(of: /GET \/a{510}… 404 \d+\.\dms/) != nil, "\(logged)")
        // Still serving.
        _ = try await Self.getJSON(issuer + "/.well-known/openid-configuration")
        serve.send(SIGTERM)
        let exit = try await serve.waitForExit()
        #expect(exit.isCleanExit, "\(exit); stderr: \(serve.standardError.suffix(2000))")
    }

    /// Issue 27: an offset or advance that overflowed the clock killed the server. Each is now
    /// a 400 `invalid_request` with a description, the clock stays where it was, and the
    /// server keeps answering.
    @Test("/_admin/clock refuses moves out of range")
    func clockOutOfRange() async throws {
        let (serve, issuer) = try await Self.startServe()
        let bodies: [JSONValue] = [
            ["offset": .int(.max)], ["offset": .int(.min)], ["advance": .int(1 << 62)],
            ["advance": .int(1 << 62)], ["advance": .int(.min)],
        ]
        for body in bodies {
            let response = try await Self.transport.send(
                .json(.post, url: issuer + "/_admin/clock", body: body))
            #expect(response.status == 400, "\(body)")
            let error = try response.jsonBody()
            #expect(error["error"] == "invalid_request")
            #expect(
                error["error_description"]?.stringValue?.contains("years 0001 to 9999") == true, "\(error)")
        }
        let before = Int64(Date().timeIntervalSince1970)
        let unmoved = try await Self.transport.send(.json(.post, url: issuer + "/_admin/clock", body: [:]))
        let now = try #require(try unmoved.jsonBody()["now"]?.int64Value)
        #expect(abs(now - before) < 60)
        serve.send(SIGTERM)
        let exit = try await serve.waitForExit()
        #expect(exit.isCleanExit, "\(exit); stderr: \(serve.standardError.suffix(2000))")
    }

    /// A bad tenant file is refused with its place before anything listens: exit 1, no URL.
    @Test("a bad tenant file exits 1 with file and line")
    func badTenant() async throws {
        let path = try TemporaryDirectory.shared.write(
            "clients:\n  - client_id: com.partner.app\n    redirect_uri: []\n", named: "serve-bad-tenant.yaml"
        )
        let result = try await SignInSimBinary.run(["serve", "--tenant", path], timeout: .seconds(30))
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(
            result.standardError.hasPrefix(
                "Error: \(path):3:5: unknown key \"redirect_uri\" in a client; allowed keys: client_id"))

        let missing = try await SignInSimBinary.run(["serve", "--tenant", path + ".missing.json"])
        #expect(missing.status == 1)
        #expect(
            missing.standardError
                == "Error: \(path).missing.json: cannot open the file: No such file or directory\n")
    }

    /// Options that cannot work are usage errors (exit 64).
    @Test(
        "bad options exit 64",
        arguments: [
            ["--port", "http"], ["--port", "65536"], ["--port", "-1"], ["--host", "0.0.0.0"],
            ["--host", "localhost"], ["--host", "192.168.1.1"], ["extra"],
        ])
    func badOptions(_ options: [String]) async throws {
        let result = try await SignInSimBinary.run(["serve"] + options)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("Error: "))
        #expect(result.standardError.contains("Usage: signinsim serve"))
    }

    /// `--port N` binds that port; when another socket has it, serve exits 1 saying so.
    @Test("--port binds the port or fails clearly")
    func fixedPort() async throws {
        let occupant = MicroHTTPServer { _ in .text("occupied") }
        try occupant.start()
        let taken = occupant.port
        let refused = try await SignInSimBinary.run(
            ["serve", "--port", String(taken)], timeout: .seconds(30))
        #expect(refused.status == 1)
        #expect(
            refused.standardError == "Error: cannot listen on 127.0.0.1:\(taken): Address already in use\n")
        await occupant.shutdown()

        // The port was just freed, so it is free now (unless another process grabs it in between).
        let serve = try RunningProcess.signInSim(["serve", "--port", String(taken)])
        let line = try await serve.firstLine()
        #expect(line == "issuer: http://127.0.0.1:\(taken)")
        serve.send(SIGTERM)
        #expect(try await serve.waitForExit().isCleanExit)
    }
}
