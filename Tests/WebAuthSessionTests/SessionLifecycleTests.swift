import HTTPClient
import HTTPCore
import HTTPServer
import Locking
import TestSupport
import Testing
import WebAuthSession
import WorldVocabulary

/// A site whose authorize page is a login form, so a session can be left waiting on it.
private func loginSite() -> Router {
    var router = Router()
    router.add(.get, "/authorize") { _ in
        .html(
            """
            <html><title>Sign in</title><form method="post" action="/login">
            <input name="username"><input type="password" name="password"><button>Go</button></form></html>
            """)
    }
    return router
}

private func loginSession(_ server: MicroHTTPServer) -> WebAuthenticationSession {
    WebAuthenticationSession(
        url: server.baseURL + "/authorize", callback: .customScheme("com.example.app"),
        browser: LiteBrowser(curl: CurlTransport()))
}

/// A deadline the test fires by hand, as a simulator's virtual clock would.
private func manualDeadline() -> (WebSessionDeadline, AsyncStream<Void>.Continuation) {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let deadline = WebSessionDeadline {
        for await _ in stream { return }
    }
    return (deadline, continuation)
}

/// A timer deadline the test fires by hand: what it was armed with, and whether it was disarmed.
private final class ManualTimer: Sendable {
    private let state = Mutex<(fire: (@Sendable () -> Void)?, disarmed: Bool)>((nil, false))

    var deadline: WebSessionDeadline {
        WebSessionDeadline(arm: { fire in
            self.state.withLock { $0.fire = fire }
            return { self.state.withLock { $0.disarmed = true } }
        })
    }

    var isDisarmed: Bool { state.withLock { $0.disarmed } }

    func fire() { state.withLock { $0.fire }?() }
}

private func errorCode(_ outcome: WebAuthenticationOutcome) -> WebAuthenticationError.Code? {
    if case .failure(let error) = outcome.result { return error.code }
    return nil
}

@Suite("WebAuthenticationSession presentation, cancel and deadline")
struct SessionLifecycleTests {
    /// Field bug 6: a scene that is not foreground-active cannot present (error 3).
    @Test("a scene that is not foreground-active gives presentationContextInvalid")
    func notForeground() async throws {
        try await withTestServer(router: loginSite()) { server in
            let context = WebPresentationContext(isForegroundActive: false)
            let error = #expect(throws: WebAuthenticationError.self) {
                try loginSession(server).start(as: WebUserScript(), in: context)
            }
            #expect(error?.code == .presentationContextInvalid)
            #expect(!context.isPresenting)
            context.isForegroundActive = true
            let handle = try loginSession(server).start(
                as: .signIn(
                    username: "a", password: "b",
                    interruption: .cancel(at: .login)), in: context)
            #expect(errorCode(await handle.outcome()) == .canceledLogin)
        }
    }

    /// Field bug 5: an abandoned sheet stays up and blocks the next session until cancelled.
    @Test("an abandoned session blocks the next until cancel() resolves it")
    func abandonThenCancel() async throws {
        try await withTestServer(router: loginSite()) { server in
            let context = WebPresentationContext()
            let abandoned = WebUserScript.signIn(
                username: "a", password: "b", interruption: .abandon(at: .login))
            let handle = try loginSession(server).start(as: abandoned, in: context, deadline: nil)
            // The login page is reached and the session then waits.
            try await poll(until: "the abandoned session to reach the login page") { !handle.trace.isEmpty }
            #expect(handle.trace.map(\.action) == [.abandoned])
            #expect(!handle.isFinished)
            let error = #expect(throws: WebAuthenticationError.self) {
                try loginSession(server).start(as: WebUserScript(), in: context)
            }
            #expect(error?.code == .alreadyPresenting)

            handle.cancel()
            let outcome = await handle.outcome()
            #expect(errorCode(outcome) == .canceledLogin)
            #expect(outcome.trace.map(\.action) == [.abandoned])
            #expect(!context.isPresenting)
            // A later cancel changes nothing.
            handle.cancel()
            #expect(errorCode(await handle.outcome()) == .canceledLogin)
        }
    }

    /// An injected deadline ends a pending session with timeout and frees the context.
    @Test("the deadline ends a pending session with timeout")
    func deadline() async throws {
        try await withTestServer(router: loginSite()) { server in
            let context = WebPresentationContext()
            let (deadline, fire) = manualDeadline()
            let handle = try loginSession(server).start(
                as: WebUserScript(interruption: .abandon(at: .beforeLoad)), in: context, deadline: deadline)
            #expect(!handle.isFinished)
            fire.yield()
            let outcome = await handle.outcome()
            #expect(errorCode(outcome) == .timeout)
            #expect(outcome.trace.map(\.action) == [.abandoned])
            #expect(!context.isPresenting)
        }
    }

    /// A deadline that never fires does not end a session that finishes on its own, and a
    /// session that ends cancels its deadline (no late timeout).
    @Test("a finished session ignores its deadline")
    func deadlineAfterFinish() async throws {
        try await withTestServer(router: loginSite()) { server in
            let (deadline, fire) = manualDeadline()
            let handle = try loginSession(server).start(
                as: WebUserScript(interruption: .cancel(at: .beforeLoad)), in: WebPresentationContext(),
                deadline: deadline)
            let outcome = await handle.outcome()
            fire.yield()
            #expect(errorCode(outcome) == .canceledLogin)
            #expect(errorCode(await handle.outcome()) == .canceledLogin)
            // Cancelled before loading: no request was made.
            #expect(
                outcome.trace == [
                    WebPageVisit(
                        method: .get, url: server.baseURL + "/authorize", status: nil, action: .canceled)
                ])
        }
    }

    /// A timer deadline ends a pending session with timeout, like a waited one.
    @Test("a timer deadline ends a pending session with timeout")
    func timerDeadline() async throws {
        try await withTestServer(router: loginSite()) { server in
            let context = WebPresentationContext()
            let timer = ManualTimer()
            let handle = try loginSession(server).start(
                as: WebUserScript(interruption: .abandon(at: .beforeLoad)), in: context,
                deadline: timer.deadline)
            #expect(!handle.isFinished)
            timer.fire()
            let outcome = await handle.outcome()
            #expect(errorCode(outcome) == .timeout)
            #expect(!context.isPresenting)
        }
    }

    /// A session that ends on its own disarms its timer, and a late fire changes nothing.
    @Test("a finished session disarms its timer deadline")
    func timerDeadlineAfterFinish() async throws {
        try await withTestServer(router: loginSite()) { server in
            let timer = ManualTimer()
            let handle = try loginSession(server).start(
                as: WebUserScript(interruption: .cancel(at: .beforeLoad)), in: WebPresentationContext(),
                deadline: timer.deadline)
            #expect(errorCode(await handle.outcome()) == .canceledLogin)
            #expect(timer.isDisarmed)
            timer.fire()
            #expect(errorCode(await handle.outcome()) == .canceledLogin)
        }
    }

    /// The real-clock deadline works too.
    @Test("after(_:) times out on the real clock")
    func realClockDeadline() async throws {
        try await withTestServer(router: loginSite()) { server in
            let outcome = await loginSession(server).run(
                as: WebUserScript(interruption: .abandon(at: .beforeLoad)), in: WebPresentationContext(),
                deadline: .after(.milliseconds(50)))
            #expect(errorCode(outcome) == .timeout)
        }
    }

    /// cancel() stops a request in flight: a slow server does not keep the session.
    @Test("cancel() during a slow request resolves at once")
    func cancelInFlight() async throws {
        let arrived = ChangeSignal()
        let requests = Mutex(0)
        var router = Router()
        router.add(.get, "/slow") { _ in
            requests.withLock { $0 += 1 }
            arrived.notify()
            try? await Task.sleep(for: .seconds(2))
            return .text("late")
        }
        try await withTestServer(router: router) { server in
            let session = WebAuthenticationSession(
                url: server.baseURL + "/slow", callback: .customScheme("com.example.app"),
                browser: LiteBrowser(curl: CurlTransport()))
            let handle = try session.start(as: WebUserScript(), in: WebPresentationContext())
            try await arrived.wait(for: "the request to reach the slow server") {
                requests.withLock { $0 } > 0
            }
            let clock = ContinuousClock()
            let start = clock.now
            handle.cancel()
            #expect(errorCode(await handle.outcome()) == .canceledLogin)
            #expect(clock.now - start < .seconds(1))
        }
    }
}
