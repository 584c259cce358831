public import JSON

/// An HTTP response as both the server writes it and the client receives it.
public struct HTTPResponse: Hashable, Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// How long each phase took, when a real network client measured it.
    public var timings: HTTPTimings?
    /// Set by a server that wants the connection closed with no answer at all: the fault of a
    /// response lost after the request was processed. Servers close the connection; in-process
    /// transports report `HTTPError.connectionLost`.
    public var dropsConnection: Bool
    /// Fields a client transport added to the request as it went out, beyond those the request
    /// carried: the `Cookie` of a cookie jar. Logs show the request as it was sent with them.
    public var addedRequestHeaders: [HTTPField]

    public init(
        status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], timings: HTTPTimings? = nil,
        dropsConnection: Bool = false, addedRequestHeaders: [HTTPField] = []
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.timings = timings
        self.dropsConnection = dropsConnection
        self.addedRequestHeaders = addedRequestHeaders
    }

    /// No response: the connection is closed after the request was processed.
    public static let droppedConnection = HTTPResponse(status: 0, dropsConnection: true)
}

extension HTTPResponse {
    /// A JSON response (serialised with sorted keys, so identical values give identical bytes).
    public static func json(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse
    {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: MediaType.json)
        return HTTPResponse(status: status, headers: headers, body: value.serialized())
    }

    /// An HTML page in UTF-8.
    public static func html(_ page: String, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "text/html; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(page.utf8))
    }

    /// Plain text in UTF-8.
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    /// A redirect with a `Location` (RFC 9110 §15.4); 302 Found by default, as OAuth uses.
    public static func redirect(to location: String, status: Int = 302, headers: HTTPHeaders = [:])
        -> HTTPResponse
    {
        var headers = headers
        headers.replaceOrAdd(name: "Location", value: location)
        return HTTPResponse(status: status, headers: headers)
    }

    public var isRedirect: Bool { (300..<400).contains(status) && headers.contains("Location") }

    /// The media type of the body without parameters, lowercased.
    public var mediaType: String? { headers["Content-Type"].map(MediaType.essence) }

    /// The body as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(validating: body, as: UTF8.self) }

    /// The body parsed as JSON, whatever the content type claims (servers often mislabel).
    public func jsonBody() throws(HTTPError) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            let kind = mediaType.map { " (Content-Type \($0))" } ?? ""
            throw HTTPError(.malformedBody, "response body\(kind) is not JSON: \(error.message)")
        }
    }
}

/// Time spent in each phase of one exchange, in milliseconds, in the shape of HAR 1.2 `timings`.
public struct HTTPTimings: Hashable, Sendable {
    public var dns: Double
    public var connect: Double
    public var send: Double
    public var wait: Double
    public var receive: Double
    public var total: Double
    /// Whether the exchange reused a connection kept alive from an earlier one.
    public var reusedConnection: Bool

    public init(
        dns: Double = 0, connect: Double = 0, send: Double = 0, wait: Double = 0, receive: Double = 0,
        total: Double = 0, reusedConnection: Bool = false
    ) {
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.total = total
        self.reusedConnection = reusedConnection
    }
}
