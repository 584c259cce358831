import Foundation
import HTTPCore
import HTTPServer
import Locking

/// A forward proxy on loopback through which a phone's WebKit stores send every request:
/// documents, redirects, scripts, `fetch` and XHR alike; `http` directly, `https` through a
/// tunnel it ends itself (``TLSTunnelProxy``).
///
/// Each request goes out through the phone's network (its conditions and faults, its log), as
/// the `lite` engine's do, so the run's HAR holds exactly what the engine sent and received:
/// the `Cookie` WebKit chose, POST bodies, the redirect to the callback (which WebKit is told not
/// to follow, so no page ever loads it). WebKit's own API shows none of these.
///
/// A sheet marks its requests with a token at the end of its `User-Agent`
/// (``SheetProxy/marker(for:)``), which the proxy reads and removes before forwarding: that is
/// how it knows the app and sheet behind a request when two apps of one phone share a store.
/// `Accept-Encoding` is removed too, so that bodies arrive (and are recorded) as text.
final class SheetProxy: Sendable {
    private let server: MicroHTTPServer
    private let tunnels: TLSTunnelProxy
    private let table: SheetTable

    /// The sheets the proxy serves, shared with its handler.
    final class SheetTable: Sendable {
        let sheets = Mutex<[String: SheetTraffic]>([:])
    }

    /// What the proxy saw of one sheet's documents.
    struct SheetTraffic: Sendable {
        /// Whom the sheet's requests are sent for: the app that presented it, and whether for a
        /// check.
        var initiator: RequestInitiator
        /// The status of the last response to each URL, newest last (a bounded list), each
        /// numbered in the order it went back to the sheet (from 1), and when.
        var responses: [(number: Int, url: String, status: Int, at: ContinuousClock.Instant)] = []
        /// Requests that got no response (the phone's network failed them), by URL.
        var failures: [String: String] = [:]
    }

    init(network: any HTTPTransport) throws(WebKitEngineError) {
        let table = SheetTable()
        self.table = table
        var configuration = HTTPServerConfiguration()
        configuration.keepsAbsoluteTargets = true
        configuration.shutdownGracePeriod = .zero
        configuration.maximumBodySize = 16 << 20
        server = MicroHTTPServer(configuration: configuration) { request in
            await Self.forward(request, network: network, table: table)
        }
        do {
            try server.start()
        } catch {
            throw WebKitEngineError(.cannotStart, "the sheet proxy cannot listen: \(error)")
        }
        tunnels = try TLSTunnelProxy { request in await Self.forward(request, network: network, table: table)
        }
    }

    /// `http://127.0.0.1:PORT`, as WebKit's proxy settings take it, for `http` URLs.
    var url: String { "http://127.0.0.1:\(server.port)" }
    /// The proxy WebKit opens `CONNECT` tunnels to, for `https` URLs.
    var tunnelURL: String { "http://127.0.0.1:\(tunnels.port)" }

    /// The text a sheet's `User-Agent` ends with.
    static func marker(for sheet: String) -> String { " SignInSimSheet/\(sheet)" }

    func register(sheet: String, presentedBy presenter: RequestInitiator?) {
        table.sheets.withLock {
            $0[sheet] = SheetTraffic(initiator: .sheet(presentedBy: presenter, engine: .webkit))
        }
    }

    func unregister(sheet: String) {
        _ = table.sheets.withLock { $0.removeValue(forKey: sheet) }
    }

    /// The status of the last response the sheet got for `url`, if one went through here.
    func status(of url: String, sheet: String) -> Int? {
        answer(to: url, sheet: sheet, after: 0)?.status
    }

    /// How many responses the proxy has sent back to the sheet so far.
    func answered(sheet: String) -> Int {
        table.sheets.withLock { $0[sheet]?.responses.last?.number ?? 0 }
    }

    /// The last response to `url` among those the sheet got after the first `earlier` ones
    /// (``answered(sheet:)`` taken before the request was made): its status, and when it went
    /// back to the engine.
    func answer(to url: String, sheet: String, after earlier: Int) -> (
        status: Int, at: ContinuousClock.Instant
    )? {
        table.sheets.withLock { table in
            table[sheet]?.responses.last { $0.url == url && $0.number > earlier }.map { ($0.status, $0.at) }
        }
    }

    /// Why the sheet's request for `url` got no response, if it got none.
    func failure(of url: String, sheet: String) -> String? {
        table.sheets.withLock { $0[sheet]?.failures[url] }
    }

    func shutdown() async {
        tunnels.shutdown()
        await server.shutdown()
    }

    /// Header fields that belong to one connection (RFC 9110 §7.6.1) or that the proxy takes
    /// off on purpose.
    private static let removedRequestFields = [
        "Proxy-Connection", "Connection", "Keep-Alive", "Proxy-Authorization", "TE", "Trailer",
        "Transfer-Encoding", "Upgrade", "Host", "Accept-Encoding",
    ]
    private static let removedResponseFields = [
        "Connection", "Keep-Alive", "Proxy-Authenticate", "Trailer", "Transfer-Encoding", "Upgrade",
        "Content-Length",
    ]

    private static func forward(
        _ incoming: HTTPRequest, network: any HTTPTransport, table: SheetTable
    ) async -> HTTPResponse {
        guard incoming.url.hasPrefix("http://") || incoming.url.hasPrefix("https://") else {
            return HTTPResponse(
                status: 405, headers: ["Content-Type": "text/plain"],
                body: Array("this proxy forwards http and https requests only".utf8))
        }
        var request = incoming
        var sheet: String?
        if let agent = request.headers["User-Agent"], let range = agent.range(of: " SignInSimSheet/") {
            sheet = String(agent[range.upperBound...])
            request.headers.replaceOrAdd(name: "User-Agent", value: String(agent[..<range.lowerBound]))
        }
        for name in removedRequestFields { request.headers.remove(name: name) }
        let initiator =
            sheet.flatMap { name in table.sheets.withLock { $0[name]?.initiator } }
            ?? RequestInitiator.sheet(presentedBy: nil, engine: .webkit)
        let forwarded = request
        let result = await RequestInitiator.$current.withValue(initiator) {
            () async -> Result<HTTPResponse, HTTPError> in
            do throws(HTTPError) {
                return .success(try await network.send(forwarded))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(var response):
            if let sheet {
                table.sheets.withLock { table in
                    guard let number = table[sheet].map({ ($0.responses.last?.number ?? 0) + 1 }) else {
                        return
                    }
                    table[sheet]?.responses.append((number, incoming.url, response.status, .now))
                    if let count = table[sheet]?.responses.count, count > 200 {
                        table[sheet]?.responses.removeFirst(count - 200)
                    }
                }
            }
            for name in removedResponseFields { response.headers.remove(name: name) }
            response.addedRequestHeaders = []
            response.timings = nil
            return response
        case .failure(let error):
            if let sheet { table.sheets.withLock { $0[sheet]?.failures[incoming.url] = "\(error)" } }
            // No answer at all: WebKit sees the network fail, as it would have.
            return .droppedConnection
        }
    }
}
