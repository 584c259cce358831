import HTTPCore
public import JSON
import OAuthCore

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
    /// Set when the log cut the request (`RequestLogEntry.maximumParameterBytes`): how many
    /// bytes its URL and body had as received. `parameters` then holds the shortest parameters
    /// whole, and the path and the value at the limit cut.
    public var originalLength: Int?

    /// Whether the log cut the request.
    public var truncated: Bool { originalLength != nil }

    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "sequence": .int(Int64(sequence)), "time": .int(time), "method": .string(method),
            "path": .string(path),
            "status": .int(Int64(status)), "parameters": .object(parameters.mapValues(JSONValue.string)),
            "duration_ms": .double((durationMilliseconds * 1000).rounded() / 1000),
        ]
        if let originalLength {
            members["truncated"] = true
            members["original_length"] = .int(Int64(originalLength))
        }
        return .object(members)
    }

    static let redacted: Set<String> = [
        "password", OAuthParameter.clientSecret, OAuthParameter.codeVerifier, OAuthParameter.refreshToken,
        OAuthParameter.subjectToken, "actor_token",
        "token",
    ]
}

/// One request as the log keeps it: what was received, decoded only when the log is read, and
/// never more than `maximumParameterBytes` of it.
///
/// Logging runs for every request; decoding its parameters there (the form a second time, after
/// the endpoint) cost about 6 % of the issuer's time under load. So a request whose URL and body
/// together fit in `maximumParameterBytes` is kept as it came (sharing the request's storage)
/// and decoded when the log is read. A longer one is decoded at once and cut
/// (`RequestLogEntry.cut`): a client can send 4 MiB bodies, and keeping them whole let a few
/// thousand refused requests hold gigabytes (issue 27).
struct RequestLogEntry: Sendable {
    /// The most bytes of parameter names and values (query and body together) an entry keeps;
    /// a request's path is kept up to `maximumPathBytes` on top.
    static let maximumParameterBytes = 8 * 1024
    /// The most bytes of a request's path an entry keeps.
    static let maximumPathBytes = 1024
    /// What an entry costs besides its text, counted against the log's byte budget: the entry
    /// itself, and each kept parameter's dictionary slot and string headers.
    static let entryOverhead = 128
    static let parameterOverhead = 48

    var sequence = 0
    var time: Int64
    var method: HTTPMethod
    /// The URL as received, or only its path (cut) when the entry was cut.
    var url: String
    var status: Int
    var durationMilliseconds: Double
    private var contentType: String?
    private var body: [UInt8] = []
    /// The parameters, decoded at once and cut, when the request was too long to keep raw.
    private var decodedParameters: [String: String]?
    /// Set when something was cut or left out: the bytes of URL and body as received.
    private(set) var originalLength: Int?
    /// About how many bytes the entry holds, for the log's byte budget.
    private(set) var cost: Int

    init(_ request: HTTPRequest, status: Int, time: Int64, durationMilliseconds: Double) {
        self.time = time
        self.method = request.method
        self.url = request.url
        self.status = status
        self.durationMilliseconds = durationMilliseconds
        let hasBody = request.method == .post && !request.body.isEmpty
        if hasBody { contentType = request.headers["Content-Type"] }
        let length = request.url.utf8.count + (hasBody ? request.body.count : 0)
        guard length > RequestLogEntry.maximumParameterBytes else {
            if hasBody { body = request.body }
            cost = RequestLogEntry.entryOverhead + length
            return
        }
        var parameters = RequestLogEntry.queryParameters(request.url)
        // A body that is neither a form nor a JSON object (nor under the form decoder's
        // limit) is left out, and the entry marked.
        var bodyDecoded = true
        if hasBody {
            let fromBody = RequestLogEntry.bodyParameters(request.body, contentType: contentType)
            bodyDecoded = fromBody != nil
            parameters.merge(fromBody ?? [:]) { _, body in body }
        }
        // Secrets are redacted before the cut, so that a cut entry never holds one.
        for name in LoggedRequest.redacted where parameters[name] != nil { parameters[name] = "[redacted]" }
        let path = URLParts.path(of: request.url)
        var (kept, complete) = RequestLogEntry.cut(parameters, to: RequestLogEntry.maximumParameterBytes)
        complete = complete && bodyDecoded
        let keptPath = path.utf8Prefix(RequestLogEntry.maximumPathBytes)
        url = keptPath
        decodedParameters = kept
        if !complete || keptPath.utf8.count < path.utf8.count { originalLength = length }
        cost =
            RequestLogEntry.entryOverhead + keptPath.utf8.count
            + kept.reduce(0) {
                $0 + $1.key.utf8.count + $1.value.utf8.count + RequestLogEntry.parameterOverhead
            }
    }

    /// The entry with its parameters decoded and secrets redacted.
    var logged: LoggedRequest {
        var parameters: [String: String]
        if let decodedParameters {
            parameters = decodedParameters
        } else {
            parameters = RequestLogEntry.queryParameters(url)
            let fromBody = RequestLogEntry.bodyParameters(body, contentType: contentType) ?? [:]
            parameters.merge(fromBody) { _, body in body }
        }
        for name in LoggedRequest.redacted where parameters[name] != nil { parameters[name] = "[redacted]" }
        return LoggedRequest(
            sequence: sequence, time: time, method: method.rawValue, path: URLParts.path(of: url),
            status: status, parameters: parameters, durationMilliseconds: durationMilliseconds,
            originalLength: originalLength)
    }

    /// Lets go of the entry's text, once the log has dropped it.
    mutating func discard() {
        url = ""
        body = []
        contentType = nil
        decodedParameters = nil
        cost = 0
    }

    /// At most `budget` bytes of names and values: the parameters are taken shortest first
    /// (name and value together; by name among equals), so that the small ones that say what a
    /// request was (`grant_type`, `client_id`) stay whole; the value that crosses the budget is
    /// cut at a character boundary, and the parameters after it are left out. `complete` is
    /// `false` when anything was cut or left out.
    static func cut(_ parameters: [String: String], to budget: Int) -> (
        parameters: [String: String], complete: Bool
    ) {
        func size(_ parameter: (key: String, value: String)) -> Int {
            parameter.key.utf8.count + parameter.value.utf8.count
        }
        let ordered = parameters.sorted { size($0) != size($1) ? size($0) < size($1) : $0.key < $1.key }
        var kept: [String: String] = [:]
        var left = budget
        for parameter in ordered {
            let nameBytes = parameter.key.utf8.count
            if nameBytes + parameter.value.utf8.count <= left {
                kept[parameter.key] = parameter.value
                left -= nameBytes + parameter.value.utf8.count
            } else {
                // A name is never cut: a cut name could slip past redaction.
                if nameBytes < left { kept[parameter.key] = parameter.value.utf8Prefix(left - nameBytes) }
                return (kept, false)
            }
        }
        return (kept, true)
    }

    /// A URL's query parameters (the last of a repeated name wins).
    private static func queryParameters(_ url: String) -> [String: String] {
        var parameters: [String: String] = [:]
        if let pairs = try? URLParts.queryParameters(of: url) {
            for pair in pairs { parameters[pair.name] = pair.value }
        }
        return parameters
    }

    /// A POST body's parameters: a form's, or a JSON object's members (non-strings as JSON text);
    /// `nil` for a body that is neither.
    private static func bodyParameters(_ body: [UInt8], contentType: String?) -> [String: String]? {
        guard !body.isEmpty else { return [:] }
        var request = HTTPRequest(method: .post, url: "/", body: body)
        if let contentType { request.headers["Content-Type"] = contentType }
        var parameters: [String: String] = [:]
        if let form = try? request.formParameters() {
            for pair in form { parameters[pair.name] = pair.value }
        } else if let json = try? request.jsonBody().objectValue {
            for (name, value) in json { parameters[name] = value.stringValue ?? value.serializedString() }
        } else {
            return nil
        }
        return parameters
    }
}

/// The most recent requests, bounded by a number of entries and by the bytes they hold, the
/// oldest dropped first (docs/issuer.md, "Memory bounds").
struct RequestLog: Sendable {
    /// The most entries kept.
    let capacity: Int
    /// The most bytes the kept entries hold (`RequestLogEntry.cost`).
    let byteBudget: Int
    /// The entries from `first` on are kept; the ones before it were dropped (and discarded) and
    /// are removed in bulk, so that appending stays O(1) amortised.
    private var storage: [RequestLogEntry] = []
    private var first = 0
    private var next = 1
    /// The bytes the kept entries hold.
    private(set) var bytes = 0

    /// The retained entries, oldest first.
    var entries: ArraySlice<RequestLogEntry> { storage[first...] }

    var count: Int { storage.count - first }

    init(capacity: Int, byteBudget: Int) {
        self.capacity = max(1, capacity)
        self.byteBudget = byteBudget
    }

    mutating func append(_ entry: RequestLogEntry) {
        var entry = entry
        entry.sequence = next
        next += 1
        storage.append(entry)
        bytes += entry.cost
        // The newest entry always stays: one entry is at most about 9 KiB.
        while count > capacity || (bytes > byteBudget && count > 1) {
            bytes -= storage[first].cost
            storage[first].discard()
            first += 1
        }
        if first > 0, first >= count {
            storage.removeFirst(first)
            first = 0
        }
    }

    mutating func removeAll() {
        storage.removeAll()
        first = 0
        bytes = 0
    }
}
