import Device
import HTTPCore
import Locking
import Testing

@Suite("Conditioned transport")
struct ConditionedTransportTests {
    /// An inner transport that counts the requests that reached it, per path.
    final class Server: Sendable {
        private let seen = Mutex<[String]>([])
        var paths: [String] { seen.withLock { $0 } }
        var transport: ClosureTransport {
            ClosureTransport { request in
                self.seen.withLock { $0.append(request.path) }
                return .json(["ok": true])
            }
        }
    }

    static let token = HTTPRequest(method: .post, url: "https://issuer.example/oauth/token?x=secret")
    static let other = HTTPRequest(url: "https://cdn.example/oauth/token")

    static func make(_ server: Server) -> ConditionedTransport {
        ConditionedTransport(inner: server.transport, sleeper: { _ in })
    }

    /// With no conditions requests pass through and are logged.
    @Test func passesThrough() async throws {
        let server = Server()
        let transport = Self.make(server)
        #expect(try await transport.send(Self.token).status == 200)
        #expect(server.paths == ["/oauth/token"])
        #expect(transport.log.map(\.condition) == [.none])
        #expect(transport.log.first?.reachedServer == true)
    }

    /// Offline fails fast with a connection failure and never reaches the server.
    @Test func offline() async {
        let server = Server()
        let transport = Self.make(server)
        transport.setOffline(true)
        let error = await #expect(throws: HTTPError.self) { try await transport.send(Self.token) }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("secret") == false)
        #expect(server.paths.isEmpty)
    }

    /// A lost response was processed by the server, yet the client sees connectionLost (field bug 2).
    @Test func lostResponseReachedTheServer() async throws {
        let server = Server()
        let transport = Self.make(server)
        transport.loseResponses(ofNext: 1, matching: RequestMatch(pathPrefix: "/oauth/token"))
        let error = await #expect(throws: HTTPError.self) { try await transport.send(Self.token) }
        #expect(error?.code == .connectionLost)
        #expect(server.paths == ["/oauth/token"])
        #expect(try await transport.send(Self.token).status == 200)
        #expect(server.paths.count == 2)
        let log = transport.drainLog()
        #expect(log.map(\.condition) == [.fault(.responseLost), .none])
        #expect(log.map(\.reachedServer) == [true, true])
        #expect(transport.log.isEmpty)
    }

    /// A resent request reaches the server twice, and the app gets the second answer (the one
    /// a server that refuses replays gives).
    @Test func resentRequestReachesTheServerTwice() async throws {
        let answers = Mutex(0)
        let server = ClosureTransport { _ in
            let number = answers.withLock { count -> Int in
                count += 1
                return count
            }
            return .json(["answer": .int(Int64(number))])
        }
        let transport = ConditionedTransport(inner: server, sleeper: { _ in })
        transport.resend(next: 1, matching: RequestMatch(pathPrefix: "/oauth/token"))
        let response = try await transport.send(Self.token)
        #expect(response.bodyText?.contains(#""answer":2"#) == true)
        #expect(answers.withLock { $0 } == 2)
        #expect(try await transport.send(Self.token).bodyText?.contains(#""answer":3"#) == true)
        let log = transport.drainLog()
        #expect(log.map(\.condition) == [.fault(.resent), .none])
        #expect(log.map(\.reachedServer) == [true, true])
    }

    /// Injected 5xx answers come from the network, not the server, for exactly the count given.
    @Test func injectedServerError() async throws {
        let server = Server()
        let transport = Self.make(server)
        transport.injectStatus(503, forNext: 2, matching: RequestMatch(host: "ISSUER.example"))
        #expect(try await transport.send(Self.other).status == 200)
        #expect(try await transport.send(Self.token).status == 503)
        #expect(try await transport.send(Self.token).status == 503)
        #expect(try await transport.send(Self.token).status == 200)
        #expect(server.paths.count == 2)
        #expect(transport.conditions.faults.isEmpty)
    }

    /// A captive portal answers everything with its HTML login page, never reaching the server.
    @Test func captivePortal() async throws {
        let server = Server()
        let transport = Self.make(server)
        transport.setCaptivePortal(CaptivePortal())
        let response = try await transport.send(Self.token)
        #expect(response.status == 200)
        #expect(response.mediaType == "text/html")
        #expect(response.bodyText?.contains("<form") == true)
        #expect(throws: HTTPError.self) { try response.jsonBody() }
        #expect(server.paths.isEmpty)
        transport.setCaptivePortal(nil)
        #expect(try await transport.send(Self.token).status == 200)
    }

    /// Faults are matched in the order added, each by host and path prefix.
    @Test func faultsMatchInOrder() async throws {
        let server = Server()
        let transport = Self.make(server)
        transport.failNext(1, matching: RequestMatch(host: "cdn.example"))
        transport.injectStatus(500, forNext: 1, matching: RequestMatch(pathPrefix: "/oauth"))
        transport.failNext(1)
        #expect(try await transport.send(Self.token).status == 500)
        await #expect(throws: HTTPError.self) { try await transport.send(Self.other) }
        await #expect(throws: HTTPError.self) { try await transport.send(Self.token) }
        #expect(try await transport.send(Self.other).status == 200)
        #expect(
            transport.log.map(\.condition.description) == [
                "status 500", "connection failure", "connection failure", "none",
            ])
        #expect(transport.log.map(\.sequence) == [0, 1, 2, 3])
    }

    /// "Fail the next 3" fails exactly 3 of 20 concurrent requests; the other 17 reach the server.
    @Test func failNextUnderConcurrency() async {
        let server = Server()
        let transport = Self.make(server)
        transport.failNext(3)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do throws(HTTPError) {
                        _ = try await transport.send(Self.token)
                        return false
                    } catch {
                        return error.code == .connectionFailed
                    }
                }
            }
            var count = 0
            for await failed in group where failed { count += 1 }
            return count
        }
        #expect(failures == 3)
        #expect(server.paths.count == 17)
        #expect(transport.log.count == 20)
    }

    /// Latency is slept through the injected sleeper for requests that leave the device, not offline ones.
    @Test func latencyGoesThroughTheSleeper() async throws {
        let slept = Mutex<[Duration]>([])
        let transport = ConditionedTransport(
            inner: Server().transport, conditions: NetworkConditions(latency: .milliseconds(300)),
            sleeper: { duration in slept.withLock { $0.append(duration) } })
        _ = try await transport.send(Self.token)
        transport.setOffline(true)
        _ = try? await transport.send(Self.token)
        #expect(slept.withLock { $0 } == [.milliseconds(300)])
    }

    /// The log keeps at most its limit, the most recent exchanges last.
    @Test func logIsBounded() async throws {
        let transport = ConditionedTransport(inner: Server().transport, logLimit: 10, sleeper: { _ in })
        for _ in 0..<25 { _ = try await transport.send(Self.token) }
        let log = transport.log
        #expect(log.count <= 10)
        #expect(log.last?.sequence == 24)
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.sequence + 1 == $1.sequence })
    }
}
