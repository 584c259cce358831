import HTTPCore
import SignInSDK

/// Starts the SDK's shared work (the refresh concurrent callers share) preferring the executor
/// of the caller that started it (`InheritedExecutor.current`).
///
/// Unstructured tasks do not inherit a task executor preference (SE-0417). `signinsim run` and
/// the client benchmark have the phones' tasks prefer the thread that drives the world's
/// requests (`InheritedExecutor.run(on:_:)`), so that an SDK call and the request it makes need
/// no hand-off between threads; without this starter a shared refresh would run on the global
/// concurrent executor instead. With no preference set it behaves as the SDK's default, a
/// plain `Task { }`. The preference is the simulator's concern, so it is supplied here and the
/// SDK only sees a `TaskStarter`.
struct InheritedExecutorTaskStarter: TaskStarter {
    func startTask<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success)
        -> Task<Success, Never>
    {
        Task(executorPreference: InheritedExecutor.current) { await operation() }
    }
}
