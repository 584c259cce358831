/// When a pending web authentication session gives up with `WebAuthenticationError.timeout`.
///
/// `ASWebAuthenticationSession` itself never times out: a sheet left up by a backgrounded app
/// stays pending (field bug 5). The deadline models the app or SDK giving up on it.
///
/// A deadline is an async wait that returns once the time has come; the simulator passes one
/// that sleeps on its virtual clock, and `after(_:)` sleeps on the real one. The wait is
/// cancelled when the session ends first, and a cancelled wait never times the session out.
public struct WebSessionDeadline: Sendable {
    let wait: @Sendable () async -> Void

    public init(_ wait: @escaping @Sendable () async -> Void) {
        self.wait = wait
    }

    /// A deadline `duration` from now on the continuous clock.
    public static func after(_ duration: Duration) -> WebSessionDeadline {
        WebSessionDeadline {
            try? await Task.sleep(for: duration)
        }
    }
}
