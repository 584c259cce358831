// Concurrency helpers for tests: bounded waits and thread-safe recording.
import Foundation

/// A value several tasks or threads write and a test reads afterwards.
public final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []

    public init() {}

    public func record(_ value: Value) {
        lock.lock()
        stored.append(value)
        lock.unlock()
    }

    public var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// Thrown by `withTimeout` when the operation did not finish in time.
public struct TimedOut: Error, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "operation did not finish within \(limit)" }
}

/// Runs `operation`, failing with `TimedOut` if it takes longer than `limit`; the operation is
/// cancelled then and left behind, so even an operation that ignores cancellation cannot hang
/// the test. Bounds every wait in a test.
public func withTimeout<T: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = Race<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation)
        let work = Task {
            do {
                race.finish(.success(try await operation()))
            } catch {
                race.finish(.failure(error))
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            if race.finish(.failure(TimedOut(limit: limit))) { work.cancel() }
        }
    }
}

private final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        self.continuation = continuation
        lock.unlock()
    }

    /// Resumes the waiter with the first result; `true` for that first one.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        lock.lock()
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(with: result)
        return waiting != nil
    }
}
