/// One HTTP request and its response (or the transport error) seen during a scenario: what a
/// HAR entry is written from.
public struct RecordedExchange: Hashable, Sendable {
    /// Who sent it: `device` (the app's SDK and its web sheets), `apple` (the phone's native
    /// Apple ID sheet), `issuer` (the embedded issuer calling Apple).
    public var source: String
    /// When it started, in milliseconds since the Unix epoch, on the world's virtual clock.
    public var startedAtMilliseconds: Int64
    public var method: String
    public var url: String
    public var requestHeaders: [HeaderField]
    public var requestBody: [UInt8]
    /// The response status; nil when no response arrived (`error` says why).
    public var status: Int?
    public var responseHeaders: [HeaderField]
    public var responseBody: [UInt8]
    /// The transport error (offline, connection lost, timeout), when there was one.
    public var error: String?
    /// Wall time of the exchange in milliseconds.
    public var timeMilliseconds: Double

    public init(
        source: String, startedAtMilliseconds: Int64, method: String, url: String,
        requestHeaders: [HeaderField] = [], requestBody: [UInt8] = [], status: Int? = nil,
        responseHeaders: [HeaderField] = [], responseBody: [UInt8] = [], error: String? = nil,
        timeMilliseconds: Double = 0
    ) {
        self.source = source
        self.startedAtMilliseconds = startedAtMilliseconds
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.error = error
        self.timeMilliseconds = timeMilliseconds
    }
}

/// A header as sent, name in its original case.
public struct HeaderField: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
