/// When a pending web authentication session gives up with `WebAuthenticationError.timeout`.
///
/// `ASWebAuthenticationSession` itself never times out: a sheet left up by a backgrounded app
/// stays pending (field bug 5). The deadline models the app or SDK giving up on it.
///
/// A deadline is kept in one of two ways. An async wait returns once the time has come; the
/// session runs it in a task of its own and cancels that task when it ends first, and a
/// cancelled wait never times the session out. `after(_:)` is such a wait on the real clock.
/// A timer is armed with what to call when the time comes and hands back what disarms it; no
/// task waits for it, so a session that ends first only disarms it. The simulator arms one on
/// its virtual clock.
public struct WebSessionDeadline: Sendable {
    enum Keeping {
        case wait(@Sendable () async -> Void)
        case timer(@Sendable (_ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void)
    }

    let keeping: Keeping

    /// A deadline that has come when `wait` returns.
    public init(_ wait: @escaping @Sendable () async -> Void) {
        keeping = .wait(wait)
    }

    /// A deadline kept by a timer: `arm` registers `fire` to be called once when the time has
    /// come and returns what removes it. `fire` may be called on any thread; a call that races
    /// the disarm, after the session has ended, changes nothing.
    public init(arm: @escaping @Sendable (_ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void) {
        keeping = .timer(arm)
    }

    /// A deadline `duration` from now on the continuous clock.
    public static func after(_ duration: Duration) -> WebSessionDeadline {
        WebSessionDeadline {
            try? await Task.sleep(for: duration)
        }
    }
}
