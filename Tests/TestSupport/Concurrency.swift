// Concurrency helpers for tests: bounded waits and thread-safe recording.
import Foundation
public import Locking

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

/// Thrown by `poll(until:within:_:)` when the condition did not hold in time; says what was
/// awaited.
public struct NeverHappened: Error, CustomStringConvertible {
    public let awaited: String
    public let limit: Duration
    public var description: String { "waited \(limit) for \(awaited)" }
}

/// Checks `condition` every few milliseconds until it holds, and throws `NeverHappened` naming
/// `awaited` once `limit` has passed. For state that announces no change; where a
/// `ChangeSignal` is notified, wait on it instead.
public func poll(
    until awaited: String, within limit: Duration = .seconds(10), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw NeverHappened(awaited: awaited, limit: limit) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

extension ChangeSignal {
    /// Waits until `condition` holds, woken by this signal's notifications, and throws
    /// `NeverHappened` naming `awaited` once `limit` has passed.
    public func wait(
        for awaited: String, within limit: Duration = .seconds(10), until condition: () -> Bool
    ) async throws {
        guard await wait(until: condition, deadline: .now + limit) else {
            throw NeverHappened(awaited: awaited, limit: limit)
        }
    }
}
