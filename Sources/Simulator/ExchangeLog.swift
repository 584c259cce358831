import Clocks
public import HTTPCore
import Locking

/// HTTP exchanges a world's simulated parties send outside the phone's app network: the
/// phone's native Apple ID sheet talking to Apple, and the embedded issuer redeeming Apple
/// codes. With the device's network log, this is every request a scenario's HAR holds.
public final class ExchangeLog: Sendable {
    /// One request and what became of it.
    public struct Entry: Sendable {
        /// `apple` (the phone's Apple ID sheet) or `issuer` (the issuer calling Apple).
        public var source: String
        /// World time when it was sent, in milliseconds since the Unix epoch.
        public var startedAtMilliseconds: Int64
        public var request: HTTPRequest
        public var outcome: Result<HTTPResponse, HTTPError>
        /// Wall time, in milliseconds.
        public var durationMilliseconds: Double
        /// When it was sent on the monotonic clock: orders exchanges sent at one world instant.
        public var sentAt: ContinuousClock.Instant
        /// The app on whose behalf it was sent (the app whose Apple sheet asked), if known.
        public var app: String?
    }

    private let entries = Mutex<[Entry]>([])
    /// The most entries kept; the oldest go first.
    public let limit: Int

    public init(limit: Int = 10_000) {
        self.limit = limit
    }

    public var all: [Entry] { entries.withLock { $0 } }

    func append(_ entry: Entry) {
        entries.withLock { entries in
            entries.append(entry)
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
        }
    }
}

/// A transport that logs every exchange it carries into an `ExchangeLog`.
struct RecordingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let source: String
    let log: ExchangeLog
    let now: @Sendable () -> Int64

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let app = RequestInitiator.current?.app
        let startedAt = now()
        let started = ContinuousClock.now
        let outcome: Result<HTTPResponse, HTTPError>
        do throws(HTTPError) {
            outcome = .success(try await inner.send(request))
        } catch {
            outcome = .failure(error)
        }
        log.append(
            .init(
                source: source, startedAtMilliseconds: startedAt, request: request, outcome: outcome,
                durationMilliseconds: (ContinuousClock.now - started).inMilliseconds, sentAt: started,
                app: app))
        return try outcome.get()
    }
}
