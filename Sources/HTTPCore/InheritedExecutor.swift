/// A task executor preference that reaches the unstructured tasks a task starts.
///
/// Child tasks inherit their parent's task executor preference, but tasks made with
/// `Task { }` do not (SE-0417); task-local values they do inherit. `run(on:_:)` sets both,
/// and code that starts an unstructured task on behalf of its caller (an SDK's shared refresh,
/// a browser's page loads) passes `current` as that task's preference, so the work stays on the
/// executor its caller chose. With no preference set, `current` is `nil` and such tasks run on
/// the global concurrent executor, as before.
public enum InheritedExecutor {
    /// The preference set by the innermost `run(on:_:)` of this task or the task that started it.
    @TaskLocal public static var current: (any TaskExecutor)?

    /// Runs `operation` preferring `executor`, and makes it the preference of the unstructured
    /// tasks started inside that pass `current`.
    public static func run<T>(
        on executor: (any TaskExecutor)?, isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> T
    ) async rethrows -> T {
        try await $current.withValue(executor) {
            try await withTaskExecutorPreference(executor, isolation: isolation, operation: operation)
        }
    }
}
