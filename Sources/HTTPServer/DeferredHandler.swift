public import HTTPCore
import Synchronization

/// A handler filled in after the server has started, for services that need to know their own
/// address (an issuer's identifier is its URL, and port 0 is only resolved by binding).
///
/// Until it is set, requests get 503.
public final class DeferredHandler: Sendable {
    private let slot = Mutex<HTTPHandler?>(nil)

    public init() {}

    public func set(_ handler: @escaping HTTPHandler) { slot.withLock { $0 = handler } }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard let handler = slot.withLock({ $0 }) else {
            return .text("starting", status: 503, headers: ["Retry-After": "1"])
        }
        return await handler(request)
    }
}
