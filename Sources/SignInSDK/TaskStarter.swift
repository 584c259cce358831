/// How the SDK starts work that outlives the call that asked for it: the refresh that
/// concurrent callers share (`single-flight`) or queue behind (`serialized`).
///
/// Such work cannot be a child task, because the callers that wait for it are not its parent:
/// the first caller starts it and every later caller awaits the same `Task`. On a phone this is
/// a plain `Task { }` (`UnstructuredTaskStarter`); a host whose work must stay on an executor
/// it chose supplies its own.
public protocol TaskStarter: Sendable {
    /// Starts `operation` as an unstructured task and returns the task, which callers await.
    func startTask<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success)
        -> Task<Success, Never>
}

/// Starts each operation with a plain `Task { }`: on the global concurrent executor, at the
/// caller's priority. The default of `SignInEnvironment`.
public struct UnstructuredTaskStarter: TaskStarter {
    public init() {}

    public func startTask<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success)
        -> Task<Success, Never>
    {
        Task { await operation() }
    }
}
