import Locking
public import WorldVocabulary

/// A started web authentication session: the sheet that is up until the callback is reached,
/// the user cancels, or the deadline passes, like a running `ASWebAuthenticationSession`.
///
/// The first of those to happen decides the outcome; later ones change nothing. `cancel()`
/// is the app calling `ASWebAuthenticationSession.cancel()` (or the user swiping the sheet
/// away): it always resolves a pending session with `canceledLogin` (field bug 7).
public final class WebAuthenticationHandle: Sendable {
    private struct State {
        var outcome: WebAuthenticationOutcome?
        var trace: [WebPageVisit] = []
        var pagesRead = 0
        var waiters: [CheckedContinuation<WebAuthenticationOutcome, Never>] = []
        /// What stops the session's work when it ends: its tasks' cancels, its timers' disarms.
        var stops: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let context: WebPresentationContext

    init(context: WebPresentationContext) {
        self.context = context
    }

    /// Ends a pending session with `canceledLogin` and stops its requests.
    public func cancel() {
        finish(
            .failure(
                WebAuthenticationError(.canceledLogin, "the session was cancelled while its sheet was up")))
    }

    /// Waits for the session to end.
    public func outcome() async -> WebAuthenticationOutcome {
        await withCheckedContinuation { continuation in
            let ready: WebAuthenticationOutcome? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for the session to end and returns the callback URL as the server sent it.
    public func callbackURL() async throws(WebAuthenticationError) -> String {
        try await outcome().callbackURL()
    }

    /// Whether the session has ended.
    public var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// The pages visited so far.
    public var trace: [WebPageVisit] { state.withLock { $0.trace } }

    /// How many times the person has read the sheet's page so far (every reading, changed page
    /// or not): the evidence that a page was on screen to someone, for whoever watches the sheet.
    public var pagesRead: Int { state.withLock { $0.pagesRead } }

    // MARK: Driven by the session

    /// The person has read the page once more.
    package func notePageRead() {
        state.withLock { $0.pagesRead += 1 }
    }

    package func record(_ visit: WebPageVisit) {
        state.withLock { state in
            if state.outcome == nil { state.trace.append(visit) }
        }
    }

    /// Keeps `stop` (a task's cancel, a deadline timer's disarm) to call when the session
    /// ends; calls it at once if it has ended.
    package func whenFinished(_ stop: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state in
            if state.outcome != nil { return true }
            state.stops.append(stop)
            return false
        }
        if finished { stop() }
    }

    /// Resolves the session unless it already is: wakes the waiters, stops the tasks and the
    /// timers and takes the sheet down.
    package func finish(_ result: Result<String, WebAuthenticationError>) {
        let settled = state.withLock {
            state -> (
                WebAuthenticationOutcome, [CheckedContinuation<WebAuthenticationOutcome, Never>],
                [@Sendable () -> Void]
            )? in
            guard state.outcome == nil else { return nil }
            let outcome = WebAuthenticationOutcome(result: result, trace: state.trace)
            state.outcome = outcome
            defer {
                state.waiters = []
                state.stops = []
            }
            return (outcome, state.waiters, state.stops)
        }
        guard let (outcome, waiters, stops) = settled else { return }
        context.dismiss(ObjectIdentifier(self))
        for stop in stops { stop() }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
