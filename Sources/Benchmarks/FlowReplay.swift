import CLibXML2
import Device
import HTTPClient
import HTTPCore
import HTTPServer

/// One recorded web flow played back through the libraries alone: the same requests, byte for
/// byte, through the same libcurl transport (the browser's requests with a fresh cookie jar per
/// flow, the SDK's without cookies), answered on the server's IO thread with the responses the
/// issuer gave, and the two pages the browser reads parsed by libxml2 with no handler.
///
/// What it leaves out is everything of ours above the libraries: the SDK, the browser model,
/// the issuer's logic, the device. Set next to the floor (trivial requests), it shows how much
/// of a flow's budget the libraries' own work on the flow's real requests takes, and so how
/// much is left for the rest at a given ratio. Its signatures are added at `openssl speed`'s
/// rates, as the floor's are.
final class FlowReplay: Sendable {
    private struct Step: Sendable {
        var request: HTTPRequest
        /// Sent by the browser sheet, with its cookie jar.
        var fromBrowser: Bool
        /// An HTML page the browser reads (a 200 to a browser request).
        var page: [UInt8]?
    }

    private let server: MicroHTTPServer
    private let transport = CurlTransport(cookieJar: nil)
    private let steps: [Step]

    /// - Parameter exchanges: one whole flow as the device's network saw it; every exchange
    ///   must have a response.
    init(_ exchanges: [ConditionedTransport.Exchange]) throws {
        var answers: [String: HTTPResponse] = [:]
        var recorded: [(request: HTTPRequest, response: HTTPResponse)] = []
        for exchange in exchanges {
            guard case .success(var response) = exchange.outcome else {
                throw BenchmarkFailure("the recorded flow has a failed request: \(exchange.request.url)")
            }
            // The daemon adds `Date` and the framing itself.
            response.headers.remove(name: "Date")
            response.headers.remove(name: "Content-Length")
            answers[Self.key(exchange.request)] = response
            recorded.append((exchange.request, response))
        }
        let table = answers
        let server = MicroHTTPServer(
            immediate: { request in .response(table[FlowReplay.key(request)] ?? HTTPResponse(status: 404)) },
            handler: { _ in HTTPResponse(status: 500) })
        try server.start()
        self.server = server
        steps = try recorded.map { request, response in
            guard let origin = URLParts.origin(of: request.url) else {
                throw BenchmarkFailure("the recorded flow has a relative URL: \(request.url)")
            }
            var replayed = request
            replayed.url = server.baseURL + request.url.dropFirst(origin.count)
            let fromBrowser = request.headers["Accept"]?.hasPrefix("text/html") ?? false
            return Step(
                request: replayed, fromBrowser: fromBrowser,
                page: fromBrowser && response.status == 200 ? response.body : nil)
        }
    }

    /// A request's method, path, query and body: what picks its recorded answer.
    private static func key(_ request: HTTPRequest) -> String {
        "\(request.method.rawValue) \(request.path)?\(request.query ?? "") "
            + String(decoding: request.body, as: UTF8.self)
    }

    /// Flows replayed by `concurrency` loops in `seconds`, and the time they took.
    func measure(seconds: Double, concurrency: Int) async throws -> Tally {
        let transport = transport
        let steps = steps
        return try await InheritedExecutor.run(on: transport.executor) {
            try await timedLoops(seconds: seconds, concurrency: concurrency) { _ in
                let browser = transport.scoped(to: CookieJar())
                for step in steps {
                    let response =
                        step.fromBrowser
                        ? try await browser.send(step.request) : try await transport.send(step.request)
                    guard response.status != 404 else {
                        throw BenchmarkFailure("the replay server has no answer for \(step.request.url)")
                    }
                    if let page = step.page { FlowReplay.parse(page) }
                }
            }
        }
    }

    /// libxml2's HTML parser over `page` with an empty SAX handler and the options the
    /// browser's reader uses: the parse alone, no tree and no handler of ours.
    private static func parse(_ page: [UInt8]) {
        page.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let context = xmlCreateMemoryParserCtxt(chars.baseAddress, Int32(chars.count)) else {
                    return
                }
                defer { htmlFreeParserCtxt(context) }
                context.pointee.sax?.pointee = htmlSAXHandler()
                let options =
                    Int32(HTML_PARSE_RECOVER.rawValue) | Int32(HTML_PARSE_NOERROR.rawValue)
                    | Int32(HTML_PARSE_NOWARNING.rawValue) | Int32(HTML_PARSE_NONET.rawValue)
                _ = htmlCtxtUseOptions(context, options)
                context.pointee.html = 1
                if let handler = xmlFindCharEncodingHandler("utf-8") {
                    _ = xmlSwitchToEncoding(context, handler)
                }
                _ = htmlParseDocument(context)
            }
        }
    }

    func shutdown() async { await server.shutdown() }
}
