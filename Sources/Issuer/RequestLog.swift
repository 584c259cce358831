import HTTPCore
public import JSON

/// One request the issuer answered, as `/_admin/requests` and scenario expectations see it.
public struct LoggedRequest: Sendable, Hashable {
    public var sequence: Int
    public var time: Int64
    public var method: String
    public var path: String
    public var status: Int
    /// Query and form parameters, with secrets (`password`, `client_secret`) redacted.
    public var parameters: [String: String]
    public var durationMilliseconds: Double

    public var json: JSONValue {
        [
            "sequence": .int(Int64(sequence)), "time": .int(time), "method": .string(method),
            "path": .string(path),
            "status": .int(Int64(status)), "parameters": .object(parameters.mapValues(JSONValue.string)),
            "duration_ms": .double((durationMilliseconds * 1000).rounded() / 1000),
        ]
    }

    static let redacted: Set<String> = [
        "password", "client_secret", "code_verifier", "refresh_token", "subject_token", "actor_token",
        "token",
    ]
}

/// One request as the log keeps it: what was received, decoded only when the log is read.
///
/// Logging runs for every request; decoding its parameters there (the form a second time, after
/// the endpoint) cost about 6 % of the issuer's time under load. The URL and a small body are
/// kept as they came (sharing the request's storage); a body over `maximumRawBody` bytes is
/// decoded at once, as before, so that the log shows the same parameters either way.
struct RequestLogEntry: Sendable {
    static let maximumRawBody = 4096

    var sequence = 0
    var time: Int64
    var method: HTTPMethod
    var url: String
    var status: Int
    var durationMilliseconds: Double
    private var contentType: String?
    private var body: [UInt8] = []
    private var decodedBody: [String: String]?

    init(_ request: HTTPRequest, status: Int, time: Int64, durationMilliseconds: Double) {
        self.time = time
        self.method = request.method
        self.url = request.url
        self.status = status
        self.durationMilliseconds = durationMilliseconds
        guard request.method == .post, !request.body.isEmpty else { return }
        contentType = request.headers["Content-Type"]
        if request.body.count <= RequestLogEntry.maximumRawBody {
            body = request.body
        } else {
            decodedBody = RequestLogEntry.bodyParameters(request.body, contentType: contentType)
        }
    }

    /// The entry with its parameters decoded and secrets redacted.
    var logged: LoggedRequest {
        var parameters: [String: String] = [:]
        if let pairs = try? URLParts.queryParameters(of: url) {
            for pair in pairs { parameters[pair.name] = pair.value }
        }
        let fromBody = decodedBody ?? RequestLogEntry.bodyParameters(body, contentType: contentType)
        parameters.merge(fromBody) { _, body in body }
        for name in LoggedRequest.redacted where parameters[name] != nil { parameters[name] = "[redacted]" }
        return LoggedRequest(
            sequence: sequence, time: time, method: method.rawValue, path: URLParts.path(of: url),
            status: status, parameters: parameters, durationMilliseconds: durationMilliseconds)
    }

    /// A POST body's parameters: a form's, or a JSON object's members (non-strings as JSON text).
    private static func bodyParameters(_ body: [UInt8], contentType: String?) -> [String: String] {
        guard !body.isEmpty else { return [:] }
        var request = HTTPRequest(method: .post, url: "/", body: body)
        if let contentType { request.headers["Content-Type"] = contentType }
        var parameters: [String: String] = [:]
        if let form = try? request.formParameters() {
            for pair in form { parameters[pair.name] = pair.value }
        } else if let json = try? request.jsonBody().objectValue {
            for (name, value) in json { parameters[name] = value.stringValue ?? value.serializedString() }
        }
        return parameters
    }
}

/// The most recent requests, bounded.
struct RequestLog: Sendable {
    let capacity: Int
    /// Up to twice the capacity, trimmed in bulk so that appending stays O(1) amortised.
    private var storage: [RequestLogEntry] = []
    private var next = 1

    /// The retained entries, oldest first.
    var entries: ArraySlice<RequestLogEntry> { storage.suffix(capacity) }

    init(capacity: Int) { self.capacity = capacity }

    mutating func append(_ entry: RequestLogEntry) {
        var entry = entry
        entry.sequence = next
        next += 1
        storage.append(entry)
        if storage.count >= capacity * 2 { storage.removeFirst(storage.count - capacity) }
    }

    mutating func removeAll() { storage.removeAll() }
}
