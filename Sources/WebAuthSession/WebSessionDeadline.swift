import HTTPCore

/// When a pending web authentication session gives up with `WebAuthenticationError.timeout`.
///
/// `ASWebAuthenticationSession` itself never times out: a sheet left up by a backgrounded app
/// stays pending (field bug 5). The deadline models the app or SDK giving up on it.
///
/// A deadline is a timer: it is armed with what to call when the time comes and hands back
/// what disarms it, and a session that ends first disarms it. The simulator arms one on its
/// virtual clock. An async wait that returns once the time has come makes one too: it runs in
/// a task of its own, which the disarm cancels, and a cancelled wait never fires. `after(_:)`
/// is such a wait on the real clock.
public struct WebSessionDeadline: Sendable {
    /// Registers `fire` and returns what removes it.
    let arm: @Sendable (_ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void

    /// A deadline that has come when `wait` returns. The wait starts at once on the arming
    /// thread (SE-0472), preferring the executor the arming code runs on.
    public init(_ wait: @escaping @Sendable () async -> Void) {
        arm = { fire in
            let task = Task.immediate(executorPreference: InheritedExecutor.current) {
                await wait()
                guard !Task.isCancelled else { return }
                fire()
            }
            return { task.cancel() }
        }
    }

    /// A deadline kept by a timer: `arm` registers `fire` to be called once when the time has
    /// come and returns what removes it. `fire` may be called on any thread; a call that races
    /// the disarm, after the session has ended, changes nothing.
    public init(arm: @escaping @Sendable (_ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void) {
        self.arm = arm
    }

    /// A deadline `duration` from now on the continuous clock.
    public static func after(_ duration: Duration) -> WebSessionDeadline {
        WebSessionDeadline {
            try? await Task.sleep(for: duration)
        }
    }
}
