import Foundation
import HTTPCore

/// One request from its first line to the end of its response.
///
/// Created retained by the URI log callback (the first callback of every request) and released
/// in the completion callback; the handler task holds its own reference. Fields other than the
/// response belong to the daemon thread serving the connection.
final class RequestState: @unchecked Sendable {
    enum Phase {
        /// Headers read; the access handler has not seen the request yet.
        case new
        /// Receiving the body.
        case body
        /// Suspended while the handler runs.
        case handling
        /// A response is queued.
        case responded
    }

    let target: String
    var phase = Phase.new
    var isHead = false
    var body: [UInt8] = []
    var received = 0
    var tooLarge = false
    /// Whether an empty `Cookie` field was added ahead of the request's own (`ServerCore`).
    var hasEmptyCookieField = false
    /// Whether an unreadable `Content-Length` field was renamed before libmicrohttpd read it
    /// (`ServerCore`).
    var disarmedContentLength = false
    private let lock = NSLock()
    private var response: HTTPResponse?

    init(target: String) { self.target = target }

    func store(_ response: HTTPResponse) {
        lock.lock()
        self.response = response
        lock.unlock()
    }

    func takeResponse() -> HTTPResponse? {
        lock.lock()
        defer { lock.unlock() }
        let taken = response
        response = nil
        return taken
    }
}
