import CCurl
import HTTPCore

/// One request in flight: its easy handle, the response as it arrives, and the caller waiting.
///
/// Ownership: the sending task builds it and configures the handle, then hands it to the
/// `CurlMultiLoop` thread, which alone touches it from then on (curl callbacks run on that
/// thread) until it resumes the continuation. The queue lock of the loop orders the hand-over.
final class CurlTransfer: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>

    let easy: UnsafeMutableRawPointer
    private let pool: CurlEasyHandlePool
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let maximumResponseSize: Int
    private var body: [UInt8] = []
    private var exceededLimit = false
    /// The `Cookie` values libcurl's cookie engine added to the request, read from the header
    /// block it sent (only for transfers with a jar whose request carried no `Cookie` itself).
    private var sentCookies: [String] = []

    var continuation: Continuation?
    /// Set on the loop thread when a cancel arrives before the transfer was added.
    var cancelRequested = false
    /// Set on the loop thread once the continuation has been resumed.
    var isFinished = false

    /// Takes a handle from the pool and configures it for `request`.
    init(
        request: HTTPRequest, pool: CurlEasyHandlePool, configuration: CurlTransportConfiguration
    ) throws(HTTPError) {
        self.pool = pool
        self.easy = pool.take()
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        self.maximumResponseSize = configuration.maximumResponseSize
        do {
            try configure(request, configuration)
        } catch {
            release()
            throw error
        }
    }

    deinit {
        errorBuffer.deallocate()
    }

    private func configure(_ request: HTTPRequest, _ configuration: CurlTransportConfiguration)
        throws(HTTPError)
    {
        let easy = self.easy
        // libcurl would guess `http://` for a URL without a scheme; a simulator must not guess.
        // The scheme and host are checked with a scan of the bytes (no `URLComponents`, which
        // cost 5% of a phone's CPU in sign-in flows); libcurl parses the rest and refuses a
        // malformed URL with CURLE_URL_MALFORMAT, which is `.invalidURL` too.
        guard let origin = URLParts.origin(of: request.url),
            origin.hasPrefix("http://") || origin.hasPrefix("https://")
        else {
            throw HTTPError(
                .invalidURL, "\"\(request.url.prefix(200))\" is not an absolute http or https URL")
        }
        guard sis_easy_setopt_string(easy, CURLOPT_URL, request.url) == CURLE_OK else {
            throw HTTPError(.invalidURL, "libcurl refused the URL")
        }
        _ = sis_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = sis_easy_setopt_pointer(easy, CURLOPT_PRIVATE, Unmanaged.passUnretained(self).toOpaque())
        // Threads, not signals, carry timeouts: SIGALRM would hit an arbitrary thread.
        _ = sis_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = sis_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = sis_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        // The simulator talks to its own servers: never through a proxy from the environment.
        _ = sis_easy_setopt_string(easy, CURLOPT_PROXY, "")
        _ = sis_easy_setopt_long(
            easy, CURLOPT_TIMEOUT_MS, (request.timeout ?? configuration.timeout).curlMilliseconds)
        _ = sis_easy_setopt_long(
            easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
        _ = sis_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
        _ = sis_easy_setopt_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumResponseSize))
        _ = sis_easy_setopt_write_function(easy, curlWriteCallback)
        _ = sis_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
        pool.share?.attach(easy)
        if pool.share != nil, !request.headers.contains("Cookie") {
            // The jar's cookies go out in a header libcurl writes itself; its debug callback is
            // the only place that shows the header block as sent (CURLINFO_HEADER_OUT), so
            // that logs can record the `Cookie` a browser request carried.
            _ = sis_easy_setopt_long(easy, CURLOPT_VERBOSE, 1)
            _ = sis_easy_setopt_debug_function(easy, curlDebugCallback)
            _ = sis_easy_setopt_pointer(easy, CURLOPT_DEBUGDATA, Unmanaged.passUnretained(self).toOpaque())
        }

        try setHeaders(request.headers)
        setMethodAndBody(request)
    }

    /// Sends the caller's fields as given, repeats included. libcurl's own `Accept: */*` and
    /// `Expect: 100-continue` are removed unless the caller set them, and so is the form
    /// `Content-Type` it adds to bodies: what goes out is what the request says, plus the
    /// framing fields (`Host`, `Content-Length`) and the configured `User-Agent`.
    private func setHeaders(_ headers: HTTPHeaders) throws(HTTPError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for field in headers {
            guard Self.isToken(field.name) else {
                curl_slist_free_all(list)
                throw HTTPError(.transport, "header name \"\(field.name.prefix(64))\" is not an HTTP token")
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                curl_slist_free_all(list)
                throw HTTPError(.transport, "header \(field.name) has a line break or NUL in its value")
            }
            // "Name;" is libcurl's way to send a field with an empty value.
            let line = field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value
            list = curl_slist_append(list, line)
        }
        for suppressed in ["Accept", "Expect", "Content-Type"] where !headers.contains(suppressed) {
            list = curl_slist_append(list, suppressed + ":")
        }
        headerList = list
        _ = sis_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    }

    private func setMethodAndBody(_ request: HTTPRequest) {
        let method = request.method
        if method == .head {
            _ = sis_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
            return
        }
        // Methods whose content has a meaning send Content-Length even when empty (RFC 9110 §8.6).
        let sendsBody = !request.body.isEmpty || method == .post || method == .put || method == .patch
        if sendsBody {
            _ = sis_easy_setopt_long(easy, CURLOPT_POST, 1)
            _ = sis_easy_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            // COPYPOSTFIELDS copies `size` bytes, so the body may contain NULs; never NULL, which
            // would make libcurl read the body from stdin.
            request.body.withUnsafeBufferPointer { buffer in
                if let base = buffer.baseAddress {
                    _ = sis_easy_setopt_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                } else {
                    _ = sis_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
                }
            }
        } else {
            _ = sis_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        }
        if method != .get && method != .post {
            _ = sis_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method.rawValue)
        }
    }

    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// Called by libcurl with each piece of the body; returning less than given aborts.
    fileprivate func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= maximumResponseSize else {
            exceededLimit = true
            return 0
        }
        if body.isEmpty {
            var length: curl_off_t = -1
            if sis_easy_getinfo_offset(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK,
                length > 0
            {
                body.reserveCapacity(Int(min(length, curl_off_t(maximumResponseSize))))
            }
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Called by libcurl with the request's header block as it is sent: keeps its `Cookie`
    /// values. A redirect-free transfer sends one block.
    fileprivate func sentHeaders(_ block: UnsafeRawBufferPointer) {
        sentCookies = []
        for line in block.split(separator: UInt8(ascii: "\n")) {
            var line = line[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.count > 7,
                line.prefix(7).map({ $0 | 0x20 }).elementsEqual("cookie:".utf8)
            else { continue }
            let value = line.dropFirst(7).drop(while: { $0 == UInt8(ascii: " ") })
            sentCookies.append(String(decoding: value, as: UTF8.self))
        }
    }

    /// Turns the finished transfer into the caller's result. Loop thread only.
    func result(for code: CURLcode) -> Result<HTTPResponse, HTTPError> {
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var status = 0
        _ = sis_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(
            HTTPResponse(
                status: status, headers: responseHeaders(), body: body, timings: timings(),
                addedRequestHeaders: sentCookies.map { HTTPField(name: "Cookie", value: $0) }))
    }

    /// The fields of the final response, in order with repeats, values as received.
    private func responseHeaders() -> HTTPHeaders {
        var fields: [HTTPField] = []
        // Room for a usual response's fields, so that collecting them does not regrow the array.
        fields.reserveCapacity(12)
        var previous: UnsafeMutablePointer<curl_header>?
        while let header = curl_easy_nextheader(easy, UInt32(CURLH_HEADER), -1, previous) {
            let name = header.pointee.name.map { String(cString: $0) } ?? ""
            let value = header.pointee.value.map { String(cString: $0) } ?? ""
            fields.append(HTTPField(name: name, value: value))
            previous = header
        }
        return HTTPHeaders(fields)
    }

    /// HAR-style phases from libcurl's cumulative clocks (microseconds since the start).
    /// `send` is the gap between connected and ready to send; the upload itself counts in `wait`,
    /// because libcurl does not time the end of the upload.
    private func timings() -> HTTPTimings {
        func microseconds(_ info: CURLINFO) -> Double {
            var value: curl_off_t = 0
            _ = sis_easy_getinfo_offset(easy, info, &value)
            return Double(value)
        }
        let dns = microseconds(CURLINFO_NAMELOOKUP_TIME_T)
        let connected = max(
            dns, microseconds(CURLINFO_CONNECT_TIME_T), microseconds(CURLINFO_APPCONNECT_TIME_T))
        let ready = max(connected, microseconds(CURLINFO_PRETRANSFER_TIME_T))
        let firstByte = max(ready, microseconds(CURLINFO_STARTTRANSFER_TIME_T))
        let total = max(firstByte, microseconds(CURLINFO_TOTAL_TIME_T))
        var connects = 0
        _ = sis_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        return HTTPTimings(
            dns: dns / 1000, connect: (connected - dns) / 1000, send: (ready - connected) / 1000,
            wait: (firstByte - ready) / 1000, receive: (total - firstByte) / 1000, total: total / 1000,
            reusedConnection: connects == 0)
    }

    private func error(for code: CURLcode) -> HTTPError {
        let detail =
            errorBuffer.pointee != 0
            ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return HTTPError(.invalidURL, detail)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
            CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CACERT_BADFILE:
            return HTTPError(.connectionFailed, detail)
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPError(.timeout, detail)
        case CURLE_FILESIZE_EXCEEDED:
            return HTTPError(.responseTooLarge, "response body exceeds \(maximumResponseSize) bytes")
        case CURLE_WRITE_ERROR where exceededLimit:
            return HTTPError(.responseTooLarge, "response body exceeds \(maximumResponseSize) bytes")
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_SSL_SHUTDOWN_FAILED:
            return HTTPError(.connectionLost, detail)
        case CURLE_ABORTED_BY_CALLBACK:
            return HTTPError(.cancelled, "the request was cancelled")
        default:
            return HTTPError(.transport, "libcurl error \(code.rawValue): \(detail)")
        }
    }

    /// Returns the handle to the pool and frees the header list. Call once, after libcurl is done.
    func release() {
        pool.recycle(easy)
        curl_slist_free_all(headerList)
        headerList = nil
        body = []
        sentCookies = []
    }

    static func from(easy: UnsafeMutableRawPointer) -> CurlTransfer? {
        var pointer: UnsafeMutableRawPointer?
        guard sis_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer) == CURLE_OK, let pointer else {
            return nil
        }
        return Unmanaged<CurlTransfer>.fromOpaque(pointer).takeUnretainedValue()
    }
}

private func curlWriteCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

private func curlDebugCallback(
    _ handle: UnsafeMutableRawPointer?, _ type: curl_infotype, _ data: UnsafeMutablePointer<CChar>?,
    _ size: Int, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard type == CURLINFO_HEADER_OUT, let userData else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
    transfer.sentHeaders(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
