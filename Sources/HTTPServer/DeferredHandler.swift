public import HTTPCore
import Locking

/// A handler filled in after the server has started, for services that need to know their own
/// address (an issuer's identifier is its URL, and port 0 is only resolved by binding).
///
/// Until it is set, requests get 503.
public final class DeferredHandler: Sendable {
    /// The handler in a struct: a bare function type inside `Mutex`'s generic storage gets
    /// re-wrapped in a reabstraction thunk on every `withLock` read, and the chain of thunks
    /// grows with each request (observed: 2,400 → 375 requests/s within 9 s).
    private struct Installed: Sendable {
        let handler: HTTPHandler
        let immediate: ImmediateHTTPHandler?
    }

    private let slot = Mutex<Installed?>(nil)

    public init() {}

    public func set(immediate: ImmediateHTTPHandler? = nil, handler: @escaping HTTPHandler) {
        slot.withLock { $0 = Installed(handler: handler, immediate: immediate) }
    }

    /// The installed immediate handler's answer; `nil` (the full handler) when there is none.
    public func respondImmediately(to request: HTTPRequest) -> ImmediateAnswer? {
        slot.withLock { $0 }?.immediate?(request)
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard let installed = slot.withLock({ $0 }) else {
            return .text("starting", status: 503, headers: ["Retry-After": "1"])
        }
        return await installed.handler(request)
    }
}
