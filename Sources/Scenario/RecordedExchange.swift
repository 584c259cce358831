public import HTTPCore

/// One HTTP request and its response (or the transport error) seen during a scenario: what a
/// HAR entry is written from.
public struct RecordedExchange: Hashable, Sendable {
    /// Who sent it.
    public var source: ExchangeSource
    /// The app (bundle id) that sent it or whose sheet did, when known.
    public var app: String?
    /// The engine of the sheet that sent it, for `.browser`.
    public var engine: BrowserEngine?
    /// The HAR page (`step-3`) of the step during which it was sent.
    public var pageref: String?
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
    /// When it was sent, in milliseconds of real time after the run's first request: a run's
    /// virtual clock stands still while requests are in flight, so this is what tells which
    /// requests overlapped (a race) and which followed an answer (a retry). Nil in captures of
    /// other tools, whose start times are real already.
    public var wallClockOffsetMilliseconds: Double?
    /// How long after it was sent the answer had come back, from a capture's timings (HAR 1.2
    /// `send` + `wait` + `receive`), when it gives them. `timeMilliseconds` may count the
    /// connection's setup twice: mitmproxy's `wait` already holds the `connect` it also reports
    /// (`mitmproxy/addons/savehar.py`), so a retry sent at once after a refusal on a new
    /// connection would seem to start before the refusal came back.
    public var answeredAfterMilliseconds: Double?

    public init(
        source: ExchangeSource, startedAtMilliseconds: Int64, method: String, url: String,
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

/// Who sent a recorded request (a HAR entry's `_source`).
public enum ExchangeSource: String, Hashable, Sendable, CaseIterable {
    /// The app's own code and its SDK.
    case app
    /// A web authentication sheet the app presented.
    case browser
    /// The phone's native Apple ID sheet, talking to Apple.
    case apple
    /// The issuer, talking to another server (the embedded issuer redeeming an Apple code).
    case issuer
    /// The device, app or sheet not told apart (captures written before they were).
    case device
    /// Not said: a capture from another tool.
    case unknown
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

extension RecordedExchange {
    /// When it was sent on a clock that runs while requests are in flight, in milliseconds: the
    /// wall-clock offset of a signinsim run, else the start time.
    public var sendingMoment: Double { wallClockOffsetMilliseconds ?? Double(startedAtMilliseconds) }

    /// When the answer had come back, on the clock of `sendingMoment`: from the capture's
    /// timings when it gives them (`answeredAfterMilliseconds`), else from `timeMilliseconds`.
    /// What tells a retry (sent after the answer) from a race (sent while it was in flight).
    public var answerMoment: Double { sendingMoment + (answeredAfterMilliseconds ?? timeMilliseconds) }
}
