public import JSON
public import Scenario

/// Writes recorded exchanges as an HTTP Archive, the format browsers' network panels, proxies
/// and HAR viewers read (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/).
///
/// Secrets are replaced as `redaction` says before anything is written, in URLs, headers, query
/// parameters and bodies alike, each distinct secret by its own numbered placeholder
/// (`Redaction.apply(to:)`), so that the capture still replays. Custom fields (HAR 1.2 allows
/// names starting with `_`) say what the standard cannot: `_source`, who sent the request
/// (`app`, `browser`, `apple`, `issuer`), `_engine`, the engine of a `browser` request's sheet
/// (`lite` or `webkit`), `_app`, the bundle id of the app or sheet, `_error`,
/// the transport error of an exchange that got no response, and `_wall_offset_ms`, when it was
/// sent on the run's real clock (the order of requests in a race).
public enum HARWriter {
    /// The HAR document as UTF-8 JSON with sorted keys and a final newline.
    public static func render(
        _ exchanges: [RecordedExchange], recording: RunRecording? = nil, creator: String, version: String,
        redaction: Redaction = .default
    ) -> [UInt8] {
        let text = document(
            exchanges, recording: recording, creator: creator, version: version, redaction: redaction
        ).prettyPrinted()
        return Array(text.utf8) + [UInt8(ascii: "\n")]
    }

    /// The HAR document as a value: `{"log": {...}}` (HAR 1.2 §log).
    ///
    /// With a run's recording, the log also says which scenario ran, with which SDK profiles
    /// (`comment`, and `_signinsim` for tools: the scenario's header, its file, the seed, and
    /// whether each app was signed in at the end), and each top-level step is a page (HAR 1.2
    /// §pages) that its entries name in `pageref`, carrying the step as the scenario file
    /// writes it (`_step`) and how it ended (`_outcome`). Secrets in steps and settings are
    /// hidden with the entries' placeholders.
    public static func document(
        _ exchanges: [RecordedExchange], recording: RunRecording? = nil, creator: String, version: String,
        redaction: Redaction = .default
    ) -> JSONValue {
        var documents: [JSONValue] = []
        if let recording {
            documents.append(.object(ScenarioEncoder.header(recording.scenario)))
            documents += recording.steps.map { ScenarioEncoder.step($0.step) }
        }
        let redacted = redaction.apply(to: exchanges, documents: documents)
        var log: [String: JSONValue] = [
            "version": "1.2",
            "creator": ["name": .string(creator), "version": .string(version)],
            "pages": [],
            "entries": .array(redacted.exchanges.map(entry)),
        ]
        if let recording, let header = redacted.documents.first {
            log["comment"] = .string(comment(recording))
            log["_signinsim"] = runMember(recording, header: header)
            log["pages"] = .array(
                zip(recording.steps, redacted.documents.dropFirst()).map { page($0, step: $1) })
        }
        return ["log": .object(log)]
    }

    /// `signinsim run of "NAME" (FILE), seed 7; SDK profile naive (com.example.app)`, or
    /// `…, fresh randomness (no seed); …`.
    static func comment(_ recording: RunRecording) -> String {
        let scenario = recording.scenario
        let profiles = scenario.apps.map { "\($0.profile) (\($0.bundleID))" }.joined(separator: ", ")
        return "signinsim run of \"\(scenario.name)\" (\(scenario.location.file)), "
            + "\(ScenarioResult.describeSeed(recording.seed)); "
            + "SDK profile\(scenario.apps.count == 1 ? "" : "s") \(profiles)"
    }

    /// `log._signinsim`: the scenario's header as the file format writes it, where it came from,
    /// the seed, and how each app ended.
    private static func runMember(_ recording: RunRecording, header: JSONValue) -> JSONValue {
        [
            "scenario": header,
            "file": .string(recording.scenario.location.file),
            "seed": recording.seed.map { .int(Int64(truncatingIfNeeded: $0)) } ?? .null,
            "signed_in_at_end": .object(recording.signedInAtEnd.mapValues(JSONValue.bool)),
        ]
    }

    /// One `pages` element: a top-level step (HAR 1.2 §pages).
    private static func page(_ recorded: RecordedStep, step: JSONValue) -> JSONValue {
        let location = recorded.step.location
        var page: [String: JSONValue] = [
            "startedDateTime": .string(
                UTCTimestamp.iso8601(millisecondsSinceEpoch: recorded.startedAtMilliseconds)),
            "id": .string(recorded.pageID),
            "title": .string(
                "\(recorded.number). \(recorded.step.name) (\(location.file):\(location.line))"),
            "pageTimings": ["onContentLoad": -1, "onLoad": -1],
            "_step": step,
            "_outcome": outcome(recorded.record),
        ]
        if let note = recorded.record.note { page["comment"] = .string(note) }
        return .object(page)
    }

    /// How a step ended: `outcome`, the SDK call's result (`call`), and its inner steps'.
    static func outcome(_ record: StepRecord) -> JSONValue {
        var members: [String: JSONValue] = ["outcome": .string(record.outcome.rawValue)]
        if let call = record.callOutcome { members["call"] = .string(call.reportedName) }
        if !record.children.isEmpty { members["children"] = .array(record.children.map(outcome)) }
        return .object(members)
    }

    /// One `entries` element (HAR 1.2 §entries) of an exchange already redacted.
    static func entry(_ exchange: RecordedExchange) -> JSONValue {
        var entry: [String: JSONValue] = [
            "startedDateTime": .string(
                UTCTimestamp.iso8601(millisecondsSinceEpoch: exchange.startedAtMilliseconds)),
            "time": Durations.milliseconds(exchange.timeMilliseconds),
            "request": request(exchange),
            "response": response(exchange),
            "cache": [:],
            // Only the whole exchange is measured; -1 marks the phases HAR lets us leave unknown.
            "timings": [
                "blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0,
                "wait": Durations.milliseconds(exchange.timeMilliseconds), "receive": 0,
            ],
            "_source": .string(exchange.source.rawValue),
        ]
        if let error = exchange.error { entry["_error"] = .string(error) }
        if let app = exchange.app { entry["_app"] = .string(app) }
        if let engine = exchange.engine { entry["_engine"] = .string(engine.rawValue) }
        if let offset = exchange.wallClockOffsetMilliseconds { entry["_wall_offset_ms"] = .double(offset) }
        if let page = exchange.pageref { entry["pageref"] = .string(page) }
        return .object(entry)
    }

    /// HAR 1.2 §request.
    private static func request(_ exchange: RecordedExchange) -> JSONValue {
        let queryPairs = HTTPMessageParts.query(of: exchange.url).map(FormURLCoding.pairs) ?? []
        var request: [String: JSONValue] = [
            "method": .string(exchange.method),
            "url": .string(exchange.url),
            "httpVersion": "HTTP/1.1",
            "cookies": .array(
                requestCookies(HTTPMessageParts.values(of: "cookie", in: exchange.requestHeaders))),
            "headers": headers(exchange.requestHeaders),
            "queryString": nameValueList(queryPairs),
            "headersSize": -1,
            "bodySize": 0,
        ]
        guard !exchange.requestBody.isEmpty else { return .object(request) }
        let contentType = HTTPMessageParts.value(of: "content-type", in: exchange.requestHeaders)
        let body = ShownBody(exchange.requestBody, contentType: contentType)
        // HAR 1.2 §postData.
        var postData: [String: JSONValue] = [
            "mimeType": .string(contentType ?? ""), "text": .string(body.text),
        ]
        if body.isBase64 {
            // HAR has no encoding for request bodies; the member content uses, prefixed as a
            // custom one, keeps a binary body lossless.
            postData["_encoding"] = "base64"
        } else if body.isForm {
            postData["params"] = nameValueList(FormURLCoding.pairs(body.text[...]))
        }
        request["postData"] = .object(postData)
        request["bodySize"] = .int(Int64(body.size))
        return .object(request)
    }

    /// HAR 1.2 §response; status 0 and empty content when no response arrived.
    private static func response(_ exchange: RecordedExchange) -> JSONValue {
        guard let status = exchange.status else {
            return [
                "status": 0, "statusText": "", "httpVersion": "", "cookies": [],
                "headers": headers(exchange.responseHeaders),
                "content": ["size": 0, "mimeType": "x-unknown"],
                "redirectURL": "", "headersSize": -1, "bodySize": -1,
            ]
        }
        let headers = exchange.responseHeaders
        let cookies = HTTPMessageParts.values(of: "set-cookie", in: headers).compactMap {
            responseCookie($0, receivedAtMilliseconds: exchange.startedAtMilliseconds)
        }
        let location = HTTPMessageParts.value(of: "location", in: headers)
        let contentType = HTTPMessageParts.value(of: "content-type", in: headers)
        let body = ShownBody(exchange.responseBody, contentType: contentType)
        // HAR 1.2 §content.
        var content: [String: JSONValue] = [
            "size": .int(Int64(body.size)), "mimeType": .string(contentType ?? ""),
            "text": .string(body.text),
        ]
        if body.isBase64 { content["encoding"] = "base64" }
        return [
            "status": .int(Int64(status)),
            "statusText": .string(HTTPMessageParts.reasonPhrase(for: status)),
            "httpVersion": "HTTP/1.1",
            "cookies": .array(cookies),
            "headers": self.headers(headers),
            "content": .object(content),
            "redirectURL": .string(location ?? ""),
            "headersSize": -1,
            "bodySize": .int(Int64(body.size)),
        ]
    }

    private static func headers(_ fields: [HeaderField]) -> JSONValue {
        .array(fields.map { ["name": .string($0.name), "value": .string($0.value)] })
    }

    private static func nameValueList(_ pairs: [FormURLCoding.Pair]) -> JSONValue {
        .array(pairs.map { ["name": .string($0.name), "value": .string($0.value)] })
    }
}

/// A body as a HAR shows it: UTF-8 text (secrets already replaced), or base64 when it is not
/// text (an image, a compressed body).
///
/// Its size is that of what is shown, so that a redacted body does not give away the length of
/// the password it hid, and `bodySize` agrees with `text`.
private struct ShownBody {
    var text: String
    var isBase64: Bool
    var isForm: Bool
    var size: Int

    init(_ bytes: [UInt8], contentType: String?) {
        isForm = HTTPMessageParts.mediaTypeEssence(contentType) == "application/x-www-form-urlencoded"
        size = bytes.count
        guard let text = String(validating: bytes, as: UTF8.self) else {
            self.text = Base64.encode(bytes)
            isBase64 = true
            isForm = false
            return
        }
        self.text = text
        isBase64 = false
    }
}
