import CMicroHTTPD
import Foundation
import HTTPCore
import Locking

/// A libmicrohttpd connection pointer carried into the handler task.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A running daemon, as kept by `MicroHTTPServer`.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// What the daemon's callbacks reach through their context pointer.
///
/// It outlives the daemon: `MicroHTTPServer` keeps it until `MHD_stop_daemon` has returned, and
/// handler tasks still running after that hold it too, but find their connection gone from the
/// suspended set and leave the (freed) connection alone.
final class ServerCore: @unchecked Sendable {
    let handler: HTTPHandler
    let immediate: ImmediateHTTPHandler?
    let maximumBodySize: Int
    /// Longest request target answered; longer ones get 414.
    let maximumTargetLength: Int
    /// Largest request line and header block answered; larger ones get 431.
    let maximumHeaderSize: Int
    /// Whether an absolute-form target (`GET http://host/path`) reaches the handler as sent: a
    /// forward proxy's requests (`HTTPServerConfiguration.keepsAbsoluteTargets`).
    let keepsAbsoluteTargets: Bool
    /// Written only before the daemon starts (thread creation orders it before every read by
    /// the daemon's threads); other readers go through `address`.
    private var daemonBaseURL = ""
    private let address = Mutex((baseURL: "", port: 0))

    private struct Counters {
        var inFlight = 0
        var draining = false
    }

    private let counters = Mutex(Counters())

    private struct Suspended {
        var closed = false
        var connections: [ObjectIdentifier: (state: RequestState, connection: ConnectionHandle)] = [:]
        /// Handlers between taking their connection out of `connections` and returning from
        /// `MHD_resume_connection`.
        var resuming = 0
    }

    /// Connections suspended while their handler runs. Its lock is held around
    /// `MHD_suspend_connection` and never inside a callback that libmicrohttpd may call with
    /// its own locks held, so the two cannot deadlock. A handler takes its connection out under
    /// the lock and resumes it after, counted in `resuming`: the resume (a write to the
    /// daemon's wake-up descriptor) no longer holds every other request's suspend and resume
    /// back, which showed as lock contention under load. Once closed (the daemon is about to
    /// stop), no handler takes a connection out, and the stop waits for those resuming.
    private let suspended = Mutex(Suspended())

    init(
        handler: @escaping HTTPHandler, immediate: ImmediateHTTPHandler?, maximumBodySize: Int,
        maximumTargetLength: Int, maximumHeaderSize: Int, keepsAbsoluteTargets: Bool = false
    ) {
        self.handler = handler
        self.immediate = immediate
        self.maximumBodySize = maximumBodySize
        self.maximumTargetLength = maximumTargetLength
        self.maximumHeaderSize = maximumHeaderSize
        self.keepsAbsoluteTargets = keepsAbsoluteTargets
    }

    /// Records where the daemon is about to listen. Call before `MHD_start_daemon` only.
    func setAddress(baseURL: String, port: Int) {
        daemonBaseURL = baseURL
        address.withLock { $0 = (baseURL, port) }
    }

    var baseURL: String { address.withLock { $0.baseURL } }
    var port: Int { address.withLock { $0.port } }

    var inFlight: Int { counters.withLock { $0.inFlight } }
    /// Notified each time a request ends, for a stop that waits for the last one.
    let requestsEnded = ChangeSignal()

    func startDraining() { counters.withLock { $0.draining = true } }

    /// Resumes every connection still suspended with a 503 and lets no handler resume one
    /// afterwards. Call right before `MHD_stop_daemon`, which aborts the process if it finds
    /// a suspended connection that is not being resumed.
    func resumeAllForStop() {
        suspended.withLock { suspended in
            suspended.closed = true
            for (state, connection) in suspended.connections.values {
                state.store(Self.stoppingResponse)
                MHD_resume_connection(connection.pointer)
            }
            suspended.connections.removeAll()
        }
        // A handler past its removal is one call away from resuming: let it finish before the
        // daemon (and its connections) go.
        while suspended.withLock({ $0.resuming }) > 0 { sched_yield() }
    }

    // MARK: Daemon callbacks (daemon threads)

    func requestStarted(target: String) -> UnsafeMutableRawPointer {
        counters.withLock { $0.inFlight += 1 }
        return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
    }

    /// The URI log callback's work: the request's state, made as soon as its request line is
    /// read, and libmicrohttpd kept from parsing what the server never reads.
    ///
    /// libmicrohttpd 0.9.75 parses the query into one record per parameter, and later the
    /// `Cookie` header into one record per cookie after a copy of the whole field, all in the
    /// connection's memory (`connectionMemoryLimit`), about 56 bytes a record. When they do not
    /// fit, it queues a 431 and then carries on with the request as if it had not: a GET with
    /// 463 query parameters (a 3.1 KB target) was never answered, or held until the connection
    /// timed out, and a 17 KB or 500-pair `Cookie` header got a 431 whose status line and
    /// headers were sent twice (`connection_add_header` and `parse_cookie_header`, whose
    /// failures their callers ignore). Handlers read the query from `HTTPRequest.url` and
    /// cookies from the header, so both parses are turned off: a request then costs its raw
    /// bytes only, and one too large for the connection's memory gets libmicrohttpd's 414 or
    /// 431 (sent once, from the path that reads the request line and headers) or ours
    /// (`access`, for `maximumTargetLength` and `maximumHeaderSize`).
    ///
    /// - The query: right after this callback libmicrohttpd ends the target at its first `?`
    ///   and parses what follows. `uri` points into the connection's read buffer, which
    ///   libmicrohttpd writes into itself at that point; ending the string right after the `?`
    ///   leaves it no parameter to parse. The target was copied into the state before.
    /// - Cookies: libmicrohttpd parses the first `Cookie` field only, and this callback runs
    ///   before any header is read, so an empty field added here comes first, is what gets
    ///   parsed (into one empty cookie), and is left out of the handler's headers.
    ///
    /// And one error path turned away: a first `Content-Length` field libmicrohttpd cannot read
    /// (not digits only, or over 2^64 - 1) made it queue its own 400 or 413, whose status line
    /// and headers it then sent twice (`parse_connection_headers` returns nothing, and its
    /// caller goes on to build the header a second time). When the header block has arrived
    /// with the request line, as clients send it, such a field is renamed in the read buffer
    /// before libmicrohttpd reads it, and `access` answers it with a JSON 400 or 413 of ours.
    func requestStarted(uri: UnsafePointer<CChar>?, connection: OpaquePointer?) -> UnsafeMutableRawPointer {
        let target = uri.map { String(cString: $0) } ?? "/"
        counters.withLock { $0.inFlight += 1 }
        let state = RequestState(target: target)
        if let connection {
            state.hasEmptyCookieField = sis_mhd_add_empty_cookie_field(connection) == .YES
        }
        // The scan relies on the record just added (see `sis_mhd_disarm_content_length`); a
        // target answered 414 is not worth it.
        if let uri, state.hasEmptyCookieField, target.utf8.count <= maximumTargetLength {
            state.disarmedContentLength =
                sis_mhd_disarm_content_length(UnsafeMutablePointer(mutating: uri)) != 0
        }
        if let uri, let question = strchr(uri, Int32(UInt8(ascii: "?"))), question[1] != 0 {
            question[1] = 0
        }
        return Unmanaged.passRetained(state).toOpaque()
    }

    func requestEnded(_ state: UnsafeMutableRawPointer) {
        Unmanaged<RequestState>.fromOpaque(state).release()
        counters.withLock { $0.inFlight -= 1 }
        requestsEnded.notify()
    }

    func access(
        connection: OpaquePointer, state: RequestState, method: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        switch state.phase {
        case .new:
            state.phase = .body
            state.isHead = strcmp(method, "HEAD") == 0
            return begin(connection: connection, state: state)
        case .body:
            let size = uploadSize.pointee
            if size > 0 {
                uploadSize.pointee = 0
                return receive(uploadData, size: size, state: state)
            }
            if state.tooLarge {
                state.phase = .responded
                return queue(tooLargeResponse(), on: connection, state: state)
            }
            return dispatch(connection: connection, state: state, method: method)
        case .handling:
            state.phase = .responded
            let response = state.takeResponse() ?? HTTPResponse(status: 500)
            return queue(response, on: connection, state: state)
        case .responded:
            uploadSize.pointee = 0
            return .YES
        }
    }

    /// The request line and headers have arrived: refuses a target, headers or a declared body
    /// over the limits, or makes room for the body.
    private func begin(connection: OpaquePointer, state: RequestState) -> MHD_Result {
        if state.target.utf8.count > maximumTargetLength {
            state.phase = .responded
            return queue(
                Self.refusal(414, "the request target exceeds \(maximumTargetLength) bytes"),
                on: connection,
                state: state)
        }
        if sis_mhd_request_header_size(connection) > maximumHeaderSize {
            state.phase = .responded
            return queue(
                Self.refusal(431, "the request line and headers exceed \(maximumHeaderSize) bytes"),
                on: connection, state: state)
        }
        let length: Int
        switch Self.declaredLength(of: connection, disarmed: state.disarmedContentLength) {
        case .none: return .YES
        case .length(let declared): length = declared
        case .malformed(let description):
            state.phase = .responded
            return queue(Self.refusal(400, description), on: connection, state: state)
        }
        if length <= maximumBodySize {
            state.body.reserveCapacity(length)
            return .YES
        }
        state.tooLarge = true
        let expectsContinue = MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect") != nil
        if expectsContinue || length > drainLimit {
            // Answered before the body is read: no 100 Continue, and the daemon closes the
            // connection rather than reading what follows.
            state.phase = .responded
            return queue(tooLargeResponse(), on: connection, state: state)
        }
        // A client already sending the body would see its write fail (broken pipe) before
        // it reads an early answer; reading and dropping the body lets the 413 arrive.
        return .YES
    }

    /// A piece of the body: kept, or counted and dropped once the body is too large.
    private func receive(_ uploadData: UnsafePointer<CChar>?, size: Int, state: RequestState) -> MHD_Result {
        state.received += size
        if state.tooLarge || state.received > maximumBodySize {
            // An oversized body (declared, or chunked and found out here): count and drop it,
            // answer 413 at the end, and give up on a sender that goes far beyond.
            if !state.tooLarge {
                state.tooLarge = true
                state.body = []
            }
            return state.received > drainLimit ? .NO : .YES
        }
        if let uploadData {
            state.body.append(
                contentsOf: UnsafeRawBufferPointer(start: UnsafeRawPointer(uploadData), count: size))
        }
        return .YES
    }

    /// The whole request has arrived: answers it at once when the immediate handler can, else
    /// suspends the connection while the handler works and resumes it with the answer.
    private func dispatch(
        connection: OpaquePointer, state: RequestState, method: UnsafePointer<CChar>
    ) -> MHD_Result {
        state.phase = .handling
        let request = HTTPRequest(
            method: HTTPMethod(rawValue: String(cString: method)), url: url(for: state.target),
            headers: Self.headers(of: connection, skippingFirst: state.hasEmptyCookieField),
            body: state.body)
        state.body = []
        let later: @Sendable () async -> HTTPResponse
        switch immediate?(request) {
        case .response(let response)?:
            state.phase = .responded
            return queue(response, on: connection, state: state)
        case .later(let work)?:
            later = work
        case nil:
            let handler = self.handler
            later = { await handler(request) }
        }
        let handle = ConnectionHandle(pointer: connection)
        let didSuspend = suspended.withLock { suspended in
            guard !suspended.closed else { return false }
            suspended.connections[ObjectIdentifier(state)] = (state, handle)
            MHD_suspend_connection(connection)
            return true
        }
        guard didSuspend else {
            state.phase = .responded
            return queue(Self.stoppingResponse, on: connection, state: state)
        }
        Task { [self] in
            let response = await later()
            resume(handle, state: state, with: response)
        }
        return .YES
    }

    private func resume(_ connection: ConnectionHandle, state: RequestState, with response: HTTPResponse) {
        state.store(response)
        let owned = suspended.withLock { suspended in
            guard !suspended.closed, suspended.connections.removeValue(forKey: ObjectIdentifier(state)) != nil
            else { return false }
            suspended.resuming += 1
            return true
        }
        guard owned else { return }
        MHD_resume_connection(connection.pointer)
        suspended.withLock { $0.resuming -= 1 }
    }

    private func url(for target: String) -> String {
        let baseURL = daemonBaseURL
        if target.hasPrefix("/") { return baseURL + target }
        if keepsAbsoluteTargets, target.hasPrefix("http://") || target.hasPrefix("https://") { return target }
        // Absolute form (RFC 9112 §3.2.2): keep only the path and query.
        if let schemeEnd = target.range(of: "://") {
            let rest = target[schemeEnd.upperBound...]
            return baseURL + (rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/")
        }
        return baseURL + "/" + target
    }

    /// The request's header fields in order; `skippingFirst` leaves out the empty `Cookie` field
    /// added ahead of them (`requestStarted(uri:connection:)`).
    private static func headers(of connection: OpaquePointer, skippingFirst: Bool) -> HTTPHeaders {
        var fields: [HTTPField] = []
        // Room for a usual request's fields, so that collecting them does not regrow the array.
        fields.reserveCapacity(12)
        withUnsafeMutablePointer(to: &fields) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectField, pointer)
        }
        if skippingFirst, let first = fields.first, first.name == "Cookie", first.value.isEmpty {
            fields.removeFirst()
        }
        return HTTPHeaders(fields)
    }

    /// What a request's header fields declare about its body.
    enum DeclaredLength: Equatable {
        /// No `Content-Length` field (no body, or a chunked one).
        case none
        /// The body's length; `Int.max` for one beyond it (answered 413).
        case length(Int)
        /// Framing the server refuses, answered 400 (RFC 9112 §6.3, RFC 9110 §8.6).
        case malformed(String)
    }

    /// The body length a request declares, checked against every `Content-Length` and
    /// `Transfer-Encoding` field: libmicrohttpd 0.9.75 reads only the first of each, and
    /// `Content-Length` only without `Transfer-Encoding`, so what it lets through here may
    /// still be two different lengths, a second one that is not a number, a length beside
    /// `Transfer-Encoding` (a request smuggling vector), or 2^64 - 1 (its "size unknown", read
    /// until the client closes). `disarmed`: the first field was unreadable and renamed before
    /// libmicrohttpd read it (`requestStarted(uri:connection:)`).
    static func declaredLength(of connection: OpaquePointer, disarmed: Bool) -> DeclaredLength {
        var fields = FramingFields()
        withUnsafeMutablePointer(to: &fields) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectFramingField, pointer)
        }
        return declaredLength(of: fields, disarmed: disarmed)
    }

    static func declaredLength(of fields: FramingFields, disarmed: Bool) -> DeclaredLength {
        var lengths = fields.contentLengths
        if disarmed, let renamed = fields.disarmed {
            lengths.insert(renamed, at: 0)
        }
        guard !lengths.isEmpty else { return .none }
        if fields.hasTransferEncoding {
            return .malformed("the request has both Transfer-Encoding and Content-Length")
        }
        var declared: UInt64?
        for value in lengths {
            guard !value.isEmpty,
                value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return .malformed("the Content-Length header is not a number: \(Self.quoted(value))") }
            // Digits beyond 2^64 - 1: too large for any body.
            let length = UInt64(value) ?? .max
            if let declared, declared != length {
                return .malformed("the request has conflicting Content-Length values")
            }
            declared = length
        }
        return .length(Int(clamping: declared ?? 0))
    }

    /// A header value for an error description: 40 characters at most, JSON-safe.
    private static func quoted(_ value: String) -> String {
        let safe = value.unicodeScalars.prefix(40).map { scalar -> String in
            scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" ? String(scalar) : "?"
        }
        return "'" + safe.joined() + (value.unicodeScalars.count > 40 ? "...'" : "'")
    }

    /// A 414 or 431: a JSON error body as for 413, and the connection closed after it.
    private static func refusal(_ status: Int, _ description: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": MediaType.json, "Connection": "close"],
            body: Array((#"{"error":"invalid_request","error_description":""# + description + #""}"#).utf8))
    }

    private static let stoppingResponse = HTTPResponse(
        status: 503, headers: ["Content-Type": MediaType.json, "Connection": "close"],
        body: Array(#"{"error":"temporarily_unavailable","error_description":"the server is stopping"}"#.utf8)
    )

    private func tooLargeResponse() -> HTTPResponse {
        let body =
            #"{"error":"invalid_request","error_description":"request body exceeds "#
            + String(maximumBodySize) + #" bytes"}"#
        return HTTPResponse(
            status: 413, headers: ["Content-Type": MediaType.json, "Connection": "close"],
            body: Array(body.utf8))
    }

    /// How much of an oversized body is read and dropped so that its 413 can be delivered.
    private var drainLimit: Int { maximumBodySize * 2 + (1 << 20) }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, state: RequestState)
        -> MHD_Result
    {
        // A fault injected on purpose: the request was processed, the answer never arrives.
        if response.dropsConnection { return .NO }
        let created: OpaquePointer?
        if state.isHead, response.body.isEmpty, let declared = response.headers["Content-Length"],
            let length = UInt64(declared), length > 0
        {
            // A HEAD response announces the size of the GET body it stands for (RFC 9110 §9.3.2);
            // the daemon takes the size from a body it never reads for HEAD.
            created = MHD_create_response_from_callback(length, 4096, unreadableBody, nil, nil)
        } else {
            created = response.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for field in response.headers {
            // The daemon frames the message itself.
            if field.name.caseInsensitiveEquals("Content-Length")
                || field.name.caseInsensitiveEquals("Transfer-Encoding")
            {
                continue
            }
            // `withCString` lends a short string's inline bytes; passing the String itself
            // would copy each one under 16 bytes into a new array.
            _ = field.name.withCString { name in
                field.value.withCString { value in MHD_add_response_header(created, name, value) }
            }
        }
        if counters.withLock({ $0.draining }) && !response.headers.contains("Connection") {
            _ = MHD_add_response_header(created, "Connection", "close")
        }
        let status = (100...999).contains(response.status) ? response.status : 500
        return MHD_queue_response(connection, UInt32(status), created)
    }
}

private func collectField(
    _ context: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ name: UnsafePointer<CChar>?,
    _ nameSize: Int,
    _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
    guard let context, let name else { return .YES }
    let fields = context.assumingMemoryBound(to: [HTTPField].self)
    fields.pointee.append(HTTPField(name: fieldText(name, nameSize), value: fieldText(value, valueSize)))
    return .YES
}

/// A name or value libmicrohttpd hands to a field iterator, as text ("" for none).
private func fieldText(_ bytes: UnsafePointer<CChar>?, _ count: Int) -> String {
    bytes.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
}

/// The fields `ServerCore.declaredLength(of:disarmed:)` looks at, in order.
struct FramingFields {
    var contentLengths: [String] = []
    var hasTransferEncoding = false
    /// The value of the field renamed `SIS_DISARMED_CONTENT_LENGTH`, if any.
    var disarmed: String?
}

private func collectFramingField(
    _ context: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ name: UnsafePointer<CChar>?,
    _ nameSize: Int,
    _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
    guard let context, let name else { return .YES }
    let fields = context.assumingMemoryBound(to: FramingFields.self)
    if nameSize == 14, strncasecmp(name, "Content-Length", 14) == 0 {
        fields.pointee.contentLengths.append(fieldText(value, valueSize))
    } else if nameSize == 17, strncasecmp(name, "Transfer-Encoding", 17) == 0 {
        fields.pointee.hasTransferEncoding = true
    } else if nameSize == 14, strncmp(name, SIS_DISARMED_CONTENT_LENGTH, 14) == 0,
        fields.pointee.disarmed == nil
    {
        fields.pointee.disarmed = fieldText(value, valueSize)
    }
    return .YES
}

private func unreadableBody(
    _ context: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int
) -> Int {
    MHD_CONTENT_READER_END_WITH_ERROR
}

// MARK: C entry points: the daemon's context pointer is the unretained ServerCore.

func serverAccessCallback(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadSize: UnsafeMutablePointer<Int>?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let method, let uploadSize, let requestContext else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    if requestContext.pointee == nil {
        // Only when the URI log callback did not run; keep the same shape of state anyway.
        requestContext.pointee = core.requestStarted(target: url.map { String(cString: $0) } ?? "/")
    }
    guard let statePointer = requestContext.pointee else { return .NO }
    let state = Unmanaged<RequestState>.fromOpaque(statePointer).takeUnretainedValue()
    return core.access(
        connection: connection, state: state, method: method, uploadData: uploadData, uploadSize: uploadSize)
}

func serverRequestCompleted(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let context, let requestContext, let state = requestContext.pointee else { return }
    requestContext.pointee = nil
    Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().requestEnded(state)
}

func serverURILog(
    _ context: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    return core.requestStarted(uri: uri, connection: connection)
}
