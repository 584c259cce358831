import Foundation
import HTTPClient
import HTTPCore
import HTTPServer
import TestSupport
import Testing

@Suite("CurlTransport against a live loopback server")
struct CurlTransportTests {
    /// Every common method, and a custom one, reaches the server as sent, with its body.
    @Test("methods are sent as given, custom ones included")
    func methods() async throws {
        try await withTestServer(router: echoRouter()) { server in
            let transport = CurlTransport()
            for method: HTTPMethod in [.get, .post, .put, .delete, .patch, "PROPFIND"] {
                let body = method == .get ? [] : Array("payload of \(method)".utf8)
                let response = try await transport.send(
                    HTTPRequest(method: method, url: server.baseURL + "/echo?x=1", body: body))
                #expect(response.status == 200)
                #expect(response.headers["X-Method"] == method.rawValue)
                #expect(response.headers["X-URL"] == server.baseURL + "/echo?x=1")
                #expect(response.body == body)
            }
        }
    }

    /// A form body, a JSON body and a body of every byte value (NULs included) arrive intact.
    @Test("form, JSON and binary bodies arrive byte for byte")
    func bodies() async throws {
        try await withTestServer(router: echoRouter()) { server in
            let transport = CurlTransport()
            let form = HTTPRequest.form(
                url: server.baseURL + "/echo",
                parameters: ["grant_type": "authorization_code", "code": "a b&c=d/é"])
            let formEcho = try await transport.send(form)
            #expect(formEcho.body == form.body)
            #expect(formEcho.echoedHeaders.contains("Content-Type: application/x-www-form-urlencoded"))

            let json = HTTPRequest.json(
                url: server.baseURL + "/echo", body: ["name": "Ada", "n": 1, "ok": true])
            let jsonEcho = try await transport.send(json)
            #expect(jsonEcho.body == json.body)

            let binary = (0..<4096).map { UInt8($0 % 256) }
            let binaryEcho = try await transport.send(
                HTTPRequest(method: .put, url: server.baseURL + "/echo", body: binary))
            #expect(binaryEcho.body == binary)
            #expect(binaryEcho.echoedHeaders.contains("Content-Length: 4096"))
        }
    }

    /// Repeated request fields arrive in order, and libcurl adds no Accept, Expect or
    /// Content-Type of its own.
    @Test("request headers are sent as given, repeats kept, nothing added")
    func requestHeaders() async throws {
        try await withTestServer(router: echoRouter()) { server in
            let transport = CurlTransport(configuration: .init(userAgent: "SignInSimTest/1"))
            var headers: HTTPHeaders = ["X-Trace": "one"]
            headers.add(name: "DPoP", value: "proof-1")
            headers.add(name: "X-Trace", value: "two")
            headers.add(name: "X-Empty", value: "")
            let response = try await transport.send(
                HTTPRequest(
                    method: .post, url: server.baseURL + "/echo", headers: headers, body: Array("x".utf8)))
            let echoed = response.echoedHeaders
            let sent = echoed.filter { $0.hasPrefix("X-") || $0.hasPrefix("DPoP") }
            #expect(sent == ["X-Trace: one", "DPoP: proof-1", "X-Trace: two", "X-Empty:"])
            #expect(echoed.contains("User-Agent: SignInSimTest/1"))
            #expect(!echoed.contains { $0.hasPrefix("Accept:") || $0.hasPrefix("Expect:") })
            #expect(!echoed.contains { $0.hasPrefix("Content-Type:") })
        }
    }

    /// A header value with a line break is refused before anything is sent.
    @Test("header injection is refused")
    func headerInjection() async throws {
        let transport = CurlTransport()
        let error = await sendError(
            transport, HTTPRequest(url: "http://127.0.0.1:9/", headers: ["X-Bad": "a\r\nEvil: 1"]))
        #expect(error?.code == .transport)
    }

    /// Every Set-Cookie field of a response is visible, in order, and HEAD gets none of the body.
    @Test("several Set-Cookie response fields all arrive; HEAD has no body")
    func responseHeaders() async throws {
        var router = Router()
        router.add(.get, "/cookies") { _ in
            var headers: HTTPHeaders = ["Set-Cookie": "a=1; Path=/"]
            headers.add(name: "Set-Cookie", value: "b=2; Path=/; HttpOnly")
            headers.add(name: "Set-Cookie", value: "c=3; Path=/; Max-Age=60")
            return .text("hello", headers: headers)
        }
        try await withTestServer(router: router) { server in
            let transport = CurlTransport(cookieJar: nil)
            let response = try await transport.send(HTTPRequest(url: server.baseURL + "/cookies"))
            #expect(
                response.headers.values(for: "set-cookie") == [
                    "a=1; Path=/", "b=2; Path=/; HttpOnly", "c=3; Path=/; Max-Age=60",
                ])
            #expect(response.bodyText == "hello")
            let head = try await transport.send(HTTPRequest(method: .head, url: server.baseURL + "/cookies"))
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.headers["Content-Length"] == "5")
        }
    }

    /// A 302 to an app's custom scheme comes back unfollowed with Location untouched.
    @Test("redirects are not followed; a custom-scheme Location is byte-exact")
    func redirect() async throws {
        let location = "com.example.app://auth/callback?code=a%2Fb&state=x"
        var router = Router()
        router.add(.get, "/authorize") { _ in .redirect(to: location) }
        try await withTestServer(router: router) { server in
            let response = try await CurlTransport().send(HTTPRequest(url: server.baseURL + "/authorize"))
            #expect(response.status == 302)
            #expect(response.headers["Location"] == location)
            #expect(response.isRedirect)
        }
    }

    /// A handler slower than the request's time limit gives `.timeout`, about on time.
    @Test("a slow response times out")
    func timeout() async throws {
        var router = Router()
        router.add(.get, "/slow") { _ in
            try? await Task.sleep(for: .seconds(20))
            return .text("late")
        }
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .milliseconds(100)
        try await withTestServer(configuration: configuration, router: router) { server in
            let started = ContinuousClock.now
            let error = await sendError(
                CurlTransport(), HTTPRequest(url: server.baseURL + "/slow", timeout: .milliseconds(300)))
            #expect(error?.code == .timeout)
            // Well before the handler would have answered, however loaded the machine is (the
            // whole suite runs in parallel on two cores: 4 s was once exceeded by 35 ms).
            #expect(ContinuousClock.now - started < .seconds(12))
        }
    }

    /// Nothing listening on the port gives `.connectionFailed`.
    @Test("a refused connection gives .connectionFailed")
    func connectionRefused() async throws {
        let server = MicroHTTPServer { _ in .text("x") }
        try server.start()
        let port = server.port
        await server.shutdown()
        let error = await sendError(CurlTransport(), HTTPRequest(url: "http://127.0.0.1:\(port)/"))
        #expect(error?.code == .connectionFailed)
    }

    /// A server that hangs up in the middle of the body gives `.connectionLost`.
    @Test("a response cut short gives .connectionLost")
    func connectionLost() async throws {
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part".utf8)
        let port = try #require(RawSocket.serveCanned(reply))
        let error = await sendError(CurlTransport(), HTTPRequest(url: "http://127.0.0.1:\(port)/"))
        #expect(error?.code == .connectionLost)
    }

    /// URLs libcurl cannot use give `.invalidURL`.
    @Test("bad URLs give .invalidURL")
    func invalidURL() async throws {
        let transport = CurlTransport()
        for url in ["not a url", "ftp://127.0.0.1/file", "com.example.app://callback", ""] {
            let error = await sendError(transport, HTTPRequest(url: url))
            #expect(error?.code == .invalidURL, "\(url)")
        }
    }

    /// Bodies over the limit fail with `.responseTooLarge`, whether announced or streamed.
    @Test("a response over the size limit gives .responseTooLarge")
    func responseTooLarge() async throws {
        var router = Router()
        router.add(.get, "/big") { _ in HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 100_000))
        }
        router.add(.get, "/small") { _ in HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 1000))
        }
        try await withTestServer(router: router) { server in
            let transport = CurlTransport(configuration: .init(maximumResponseSize: 50_000))
            let error = await sendError(transport, HTTPRequest(url: server.baseURL + "/big"))
            #expect(error?.code == .responseTooLarge)
            let small = try await transport.send(HTTPRequest(url: server.baseURL + "/small"))
            #expect(small.body.count == 1000)
        }
        // Without Content-Length the limit is enforced while the body arrives.
        let streamed =
            Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + [UInt8](repeating: 65, count: 80_000)
        let port = try #require(RawSocket.serveCanned(streamed))
        let transport = CurlTransport(configuration: .init(maximumResponseSize: 50_000))
        let error = await sendError(transport, HTTPRequest(url: "http://127.0.0.1:\(port)/"))
        #expect(error?.code == .responseTooLarge)
    }

    /// Cancelling the task stops the transfer at once with `.cancelled`.
    @Test("task cancellation aborts the request promptly")
    func cancellation() async throws {
        let entered = Recorder<Bool>()
        var router = Router()
        router.add(.get, "/slow") { _ in
            entered.record(true)
            try? await Task.sleep(for: .seconds(60))
            return .text("late")
        }
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .milliseconds(100)
        try await withTestServer(configuration: configuration, router: router) { server in
            let transport = CurlTransport()
            let url = server.baseURL + "/slow"
            let task = Task { () -> HTTPError? in await sendError(transport, HTTPRequest(url: url)) }
            try await poll(until: "the request to reach the slow handler") { !entered.values.isEmpty }
            let started = ContinuousClock.now
            task.cancel()
            let error = await task.value
            #expect(error?.code == .cancelled)
            // Far below the handler's 60 s, with room for a busy machine.
            #expect(ContinuousClock.now - started < .seconds(30))

            let already = Task { () -> HTTPError? in
                withUnsafeCurrentTask { $0?.cancel() }
                return await sendError(transport, HTTPRequest(url: url))
            }
            #expect(await already.value?.code == .cancelled)
        }
    }

    /// The second request on a transport reuses the first one's connection, and says so.
    @Test("keep-alive: the second request reuses the connection")
    func keepAlive() async throws {
        var router = Router()
        router.add(.get, "/ping") { _ in .text("pong") }
        try await withTestServer(router: router) { server in
            let transport = CurlTransport()
            let first = try await transport.send(HTTPRequest(url: server.baseURL + "/ping"))
            let second = try await transport.send(HTTPRequest(url: server.baseURL + "/ping"))
            let firstTimings = try #require(first.timings)
            let secondTimings = try #require(second.timings)
            #expect(!firstTimings.reusedConnection)
            #expect(secondTimings.reusedConnection)
            #expect(firstTimings.total > 0)
            #expect(firstTimings.total >= firstTimings.wait)
            #expect(
                [
                    firstTimings.dns, firstTimings.connect, firstTimings.send, firstTimings.wait,
                    firstTimings.receive,
                ].allSatisfy { $0 >= 0 })
        }
    }

    /// 64 requests in flight at once all complete with their own responses.
    @Test("64 concurrent requests complete")
    func concurrency() async throws {
        var router = Router()
        router.add(
            .get, "/n/:n",
            withParameters: { _, parameters in
                try? await Task.sleep(for: .milliseconds(20))
                return .text(parameters["n"] ?? "?")
            })
        try await withTestServer(router: router) { server in
            let transport = CurlTransport()
            let results = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let response = try await transport.send(
                            HTTPRequest(url: server.baseURL + "/n/\(index)"))
                        return (index, response.bodyText)
                    }
                }
                var collected: [(Int, String?)] = []
                for try await result in group { collected.append(result) }
                return collected
            }
            #expect(results.count == 64)
            #expect(results.allSatisfy { String($0.0) == $0.1 })
        }
    }

    /// With fewer connections allowed than requests in flight, the rest wait their turn.
    @Test("requests beyond maximumConnections queue and complete")
    func connectionLimit() async throws {
        var router = Router()
        router.add(.get, "/ping") { _ in
            try? await Task.sleep(for: .milliseconds(10))
            return .text("pong")
        }
        try await withTestServer(router: router) { server in
            let transport = CurlTransport(configuration: .init(maximumConnections: 2))
            let url = server.baseURL + "/ping"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await transport.send(HTTPRequest(url: url)).status }
                }
                var collected: [Int] = []
                for try await status in group { collected.append(status) }
                return collected
            }
            #expect(statuses == Array(repeating: 200, count: 16))
        }
    }
}

@Suite("CurlTransport URL checks")
struct CurlTransportURLTests {
    /// A URL without scheme and host fails at once with `.invalidURL`, never hangs.
    @Test("relative and empty URLs are invalid", arguments: ["/_admin/authorize", "", "nonsense"])
    func relativeURL(url: String) async throws {
        let error = try await withTimeout(.seconds(10)) {
            await sendError(CurlTransport(cookieJar: nil), HTTPRequest(method: .post, url: url))
        }
        #expect(error?.code == .invalidURL, "\(String(describing: error))")
    }
}

/// The transport's libcurl thread as a task executor: work that prefers it sends and is
/// resumed there, and nothing queued on it is lost.
@Suite("CurlTransport's executor")
struct CurlTransportExecutorTests {
    static let loopThreadName = "curl-multi"

    /// The name of the thread running the caller, as the kernel knows it.
    static func threadName() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .newlines)
    }

    /// A request sent from the loop thread comes back to it; 64 child tasks there, each sending
    /// three requests in turn, all finish (each response queues the next job from the loop
    /// thread itself, so a job dropped between rounds would leave a task hanging).
    @Test("code preferring the executor runs on the loop thread, and every job queued there runs")
    func jobsRunOnTheLoopThread() async throws {
        try await withTestServer(router: echoRouter()) { server in
            let transport = CurlTransport(cookieJar: nil)
            let url = server.baseURL + "/echo"
            let threads = try await withTimeout(.seconds(30)) {
                try await withTaskExecutorPreference(transport.executor) {
                    try await Self.sendFromManyTasks(transport, url)
                }
            }
            #expect(threads == Array(repeating: Self.loopThreadName, count: 3))
        }
    }

    /// Sends one request, then three from each of 64 child tasks in turn; the thread names
    /// seen before, between and after.
    static func sendFromManyTasks(_ transport: CurlTransport, _ url: String) async throws -> [String?] {
        var seen = [Self.threadName()]
        _ = try await transport.send(HTTPRequest(url: url))
        seen.append(Self.threadName())
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<64 {
                group.addTask {
                    var statuses = 0
                    for round in 0..<3 {
                        let response = try await transport.send(
                            HTTPRequest(method: .post, url: url, body: Array("\(index).\(round)".utf8)))
                        if response.status == 200, response.bodyText == "\(index).\(round)",
                            Self.threadName() == Self.loopThreadName
                        {
                            statuses += 1
                        }
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 3, count: 64))
        seen.append(Self.threadName())
        return seen
    }

    /// Unstructured tasks do not inherit a preference (SE-0417); given `InheritedExecutor`'s,
    /// they run on the loop thread too.
    @Test("an unstructured task given InheritedExecutor.current runs on the loop thread")
    func unstructuredTasks() async throws {
        let transport = CurlTransport(cookieJar: nil)
        let names = try await withTimeout(.seconds(30)) {
            await InheritedExecutor.run(on: transport.executor) {
                let plain = await Task { Self.threadName() }.value
                let inherited = await Task(executorPreference: InheritedExecutor.current) {
                    Self.threadName()
                }
                .value
                return (plain, inherited, InheritedExecutor.current === transport.executor)
            }
        }
        #expect(names.0 != Self.loopThreadName)
        #expect(names.1 == Self.loopThreadName)
        #expect(names.2)
        #expect(InheritedExecutor.current == nil)
    }
}
