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

/// The most recent requests, bounded.
struct RequestLog: Sendable {
    let capacity: Int
    /// Up to twice the capacity, trimmed in bulk so that appending stays O(1) amortised.
    private var storage: [LoggedRequest] = []
    private var next = 1

    /// The retained entries, oldest first.
    var entries: ArraySlice<LoggedRequest> { storage.suffix(capacity) }

    init(capacity: Int) { self.capacity = capacity }

    mutating func append(_ entry: LoggedRequest) {
        var entry = entry
        entry.sequence = next
        next += 1
        storage.append(entry)
        if storage.count >= capacity * 2 { storage.removeFirst(storage.count - capacity) }
    }

    mutating func removeAll() { storage.removeAll() }
}
