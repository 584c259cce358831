import Clocks
public import HTTPCore
public import Locking

/// A transport that applies a device's `NetworkConditions` to the requests it forwards, and
/// logs every exchange.
///
/// The decision for a request (which condition or fault applies, and the decrement of a
/// fault's count) is taken atomically when the request is sent, so concurrent requests
/// consume a "fail the next N" rule exactly N times. A lost response is modelled by waiting for
/// the inner transport's answer and then throwing `connectionLost`: the server did process the
/// request (field bug 2). Closing a real connection would not do, because libcurl silently
/// retries a request whose connection was reused and dropped.
public final class ConditionedTransport: HTTPTransport {
    /// Sleeps through added latency; throws when cancelled.
    public typealias Sleeper = @Sendable (Duration) async throws -> Void

    /// Which condition a logged request met (Network Link Conditioner profiles, in effect).
    public enum AppliedCondition: Hashable, Sendable, CustomStringConvertible {
        case none
        case offline
        case captivePortal
        case fault(NetworkFault.Kind)

        public var description: String {
            switch self {
            case .none: "none"
            case .offline: "offline"
            case .captivePortal: "captive portal"
            case .fault(.connectionFailure): "connection failure"
            case .fault(.responseLost): "response lost"
            case .fault(.serverError(let status)): "status \(status)"
            case .fault(.resent): "resent"
            }
        }
    }

    /// One request and what became of it, as a HAR 1.2 entry records an exchange.
    public struct Exchange: Hashable, Sendable {
        /// Position among every exchange this transport saw, from 0; gaps mean the log dropped
        /// its oldest entries.
        public var sequence: Int
        public var request: HTTPRequest
        /// The response the client received, or the error it got.
        public var outcome: Result<HTTPResponse, HTTPError>
        public var condition: AppliedCondition
        /// Whether the request reached the inner transport (the server).
        public var reachedServer: Bool
        /// When the request was sent, in milliseconds since the Unix epoch on the transport's
        /// clock (a simulated device's virtual clock); 0 without one.
        public var startedAtMilliseconds: Int64 = 0
        /// Wall time from send to outcome, in milliseconds.
        public var durationMilliseconds: Double = 0
        /// When it was sent on the monotonic clock: orders exchanges sent at one world instant.
        public var sentAt: ContinuousClock.Instant = .now
        /// Who sent it (`RequestInitiator.current` when it was sent), if anyone said.
        public var initiator: RequestInitiator?
    }

    private struct State {
        var conditions: NetworkConditions
        var log: [Exchange] = []
        /// The requests of the simulator's own checks, kept apart from the app's.
        var checkLog: [Exchange] = []
        var nextSequence = 0
        /// Paths of requests sent, counted when sent rather than when answered.
        var sentPaths: [String: Int] = [:]
    }

    private let inner: any HTTPTransport
    private let sleeper: Sleeper
    private let now: @Sendable () -> Int64
    private let state: Mutex<State>
    /// The most exchanges the log keeps. Once full it drops its oldest tenth at once, so it
    /// holds between 90% and 100% of this many.
    public let logLimit: Int

    /// - Parameters:
    ///   - sleeper: how latency is slept; defaults to `Task.sleep` on the continuous clock. A
    ///     simulated device passes its virtual scheduler's sleep.
    ///   - now: milliseconds since the Unix epoch, stamped on each logged exchange.
    public init(
        inner: any HTTPTransport, conditions: NetworkConditions = .normal, logLimit: Int = 10_000,
        now: @escaping @Sendable () -> Int64 = { 0 },
        sleeper: @escaping Sleeper = { try await Task.sleep(for: $0) }
    ) {
        precondition(logLimit > 0, "the log must keep at least one exchange")
        self.inner = inner
        self.sleeper = sleeper
        self.now = now
        self.logLimit = logLimit
        state = Mutex(State(conditions: conditions))
    }

    // MARK: Conditions

    /// Notified whenever a request leaves the device, for whoever waits on `sentCount`.
    public let sent = ChangeSignal()

    /// How many requests were sent to `path` (any path when nil), answered or not: a request
    /// held by the server counts as soon as it leaves the device.
    public func sentCount(path: String?) -> Int {
        state.withLock { state in path.map { state.sentPaths[$0] ?? 0 } ?? state.nextSequence }
    }

    /// The current conditions, with the counts left on each fault.
    public var conditions: NetworkConditions { state.withLock { $0.conditions } }

    /// Replaces all conditions.
    public func setConditions(_ conditions: NetworkConditions) {
        state.withLock { $0.conditions = conditions }
    }

    /// Changes the conditions in place, atomically.
    public func updateConditions(_ change: (inout NetworkConditions) -> Void) {
        state.withLock { change(&$0.conditions) }
    }

    /// Takes the device off the network (or puts it back).
    public func setOffline(_ offline: Bool) { updateConditions { $0.isOffline = offline } }

    /// Sets the latency added to each request.
    public func setLatency(_ latency: Duration) { updateConditions { $0.latency = latency } }

    /// Joins (or with `nil`, leaves) a captive portal.
    public func setCaptivePortal(_ portal: CaptivePortal?) { updateConditions { $0.captivePortal = portal } }

    /// Adds a fault after the existing ones.
    public func addFault(_ fault: NetworkFault) { updateConditions { $0.faults.append(fault) } }

    /// The next `count` matching requests fail to connect.
    public func failNext(_ count: Int, matching match: RequestMatch = .any) {
        addFault(NetworkFault(.connectionFailure, count: count, matching: match))
    }

    /// The next `count` matching requests reach the server, but their responses are lost.
    public func loseResponses(ofNext count: Int, matching match: RequestMatch = .any) {
        addFault(NetworkFault(.responseLost, count: count, matching: match))
    }

    /// The next `count` matching requests reach the server twice; the app gets the second answer.
    public func resend(next count: Int, matching match: RequestMatch = .any) {
        addFault(NetworkFault(.resent, count: count, matching: match))
    }

    /// The next `count` matching requests get `status` without reaching the server.
    public func injectStatus(_ status: Int, forNext count: Int, matching match: RequestMatch = .any) {
        addFault(NetworkFault(.serverError(status: status), count: count, matching: match))
    }

    // MARK: Log

    /// The exchanges seen so far (at most `logLimit`, the latest), in completion order.
    public var log: [Exchange] { state.withLock { $0.log } }

    /// The exchanges of the simulator's checks (`RequestInitiator.isCheck`), oldest first, at
    /// most `logLimit`.
    public var checkLog: [Exchange] { state.withLock { $0.checkLog } }

    /// Returns the log and empties it.
    public func drainLog() -> [Exchange] {
        state.withLock { state in
            let log = state.log
            state.log = []
            return log
        }
    }

    // MARK: Sending

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let path = request.path
        let initiator = RequestInitiator.current
        if let initiator, initiator.isCheck { return try await sendForCheck(request, initiator: initiator) }
        let (condition, latency, portal, sequence) = state.withLock { state in
            let sequence = state.nextSequence
            state.nextSequence += 1
            state.sentPaths[path, default: 0] += 1
            let conditions = state.conditions
            if conditions.isOffline {
                return (AppliedCondition.offline, Duration.zero, nil as CaptivePortal?, sequence)
            }
            if let portal = conditions.captivePortal {
                return (.captivePortal, conditions.latency, portal, sequence)
            }
            guard let index = conditions.faults.firstIndex(where: { $0.match.matches(request) }) else {
                return (.none, conditions.latency, nil, sequence)
            }
            let kind = conditions.faults[index].kind
            state.conditions.faults[index].remaining -= 1
            if state.conditions.faults[index].remaining == 0 { state.conditions.faults.remove(at: index) }
            return (.fault(kind), conditions.latency, nil, sequence)
        }
        sent.notify()
        // "GET http://host/path" for error messages, built only when one is thrown.
        func described() -> String { "\(request.method) \(request.urlWithoutQuery)" }
        let startedAt = now()
        let started = ContinuousClock.now
        func elapsed() -> Double { Self.milliseconds(since: started) }
        var reachedServer = false
        let outcome: Result<HTTPResponse, HTTPError>
        do throws(HTTPError) {
            if latency > .zero {
                do {
                    try await sleeper(latency)
                } catch {
                    throw HTTPError(.cancelled, "\(described()) cancelled during added latency")
                }
            }
            switch condition {
            case .offline:
                throw HTTPError(.connectionFailed, "\(described()): the device is offline")
            case .captivePortal:
                // The portal was read with the condition, under the same lock.
                outcome = .success(portal?.response ?? HTTPResponse(status: 511))
            case .fault(.connectionFailure):
                throw HTTPError(.connectionFailed, "\(described()): injected connection failure")
            case .fault(.serverError(let status)):
                outcome = .success(.text("injected \(status) by the simulated network\n", status: status))
            case .fault(.responseLost):
                reachedServer = true
                let response = try await inner.send(request)
                throw HTTPError(
                    .connectionLost,
                    "\(described()): response (status \(response.status)) lost after the server "
                        + "processed the request")
            case .fault(.resent):
                reachedServer = true
                _ = try await inner.send(request)
                outcome = .success(try await inner.send(request))
            case .none:
                reachedServer = true
                outcome = .success(try await inner.send(request))
            }
        } catch {
            record(
                Exchange(
                    sequence: sequence, request: request, outcome: .failure(error), condition: condition,
                    reachedServer: reachedServer, startedAtMilliseconds: startedAt,
                    durationMilliseconds: elapsed(), sentAt: started, initiator: initiator))
            throw error
        }
        record(
            Exchange(
                sequence: sequence, request: Self.asSent(request, outcome: outcome), outcome: outcome,
                condition: condition,
                reachedServer: reachedServer, startedAtMilliseconds: startedAt,
                durationMilliseconds: elapsed(), sentAt: started, initiator: initiator))
        return try outcome.get()
    }

    /// The request as it went out, for the log: with the fields the transport beneath added (a
    /// browser jar's `Cookie`).
    static func asSent(_ request: HTTPRequest, outcome: Result<HTTPResponse, HTTPError>) -> HTTPRequest {
        var sent = request
        if case .success(let response) = outcome {
            for field in response.addedRequestHeaders {
                sent.headers.add(name: field.name, value: field.value)
            }
        }
        return sent
    }

    /// A check's request: straight to the server, past the device's conditions and faults (a
    /// check observes the issuer; it must not use up a fault a later step armed), logged apart.
    private func sendForCheck(_ request: HTTPRequest, initiator: RequestInitiator) async throws(HTTPError)
        -> HTTPResponse
    {
        let sequence = state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
        let startedAt = now()
        let started = ContinuousClock.now
        let outcome: Result<HTTPResponse, HTTPError>
        do throws(HTTPError) {
            outcome = .success(try await inner.send(request))
        } catch {
            outcome = .failure(error)
        }
        let exchange = Exchange(
            sequence: sequence, request: Self.asSent(request, outcome: outcome), outcome: outcome,
            condition: .none,
            reachedServer: (try? outcome.get()) != nil,
            startedAtMilliseconds: startedAt,
            durationMilliseconds: Self.milliseconds(since: started), sentAt: started,
            initiator: initiator)
        state.withLock { state in
            state.checkLog.append(exchange)
            if state.checkLog.count > logLimit { state.checkLog.removeFirst(state.checkLog.count - logLimit) }
        }
        return try outcome.get()
    }

    /// Wall time since `start`, in milliseconds.
    private static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start).inMilliseconds
    }

    private func record(_ exchange: Exchange) {
        state.withLock { state in
            state.log.append(exchange)
            if state.log.count > logLimit {
                // Dropping in batches keeps appends amortised O(1) once the log is full.
                state.log.removeFirst(state.log.count - logLimit + max(1, logLimit / 10) - 1)
            }
        }
    }
}
