#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, with the same `withLock` as `Synchronization.Mutex`.
///
/// Only the ThreadSanitizer build uses it (see `Mutex`): the standard library's lock is the one
/// that ships. The mutex and the value live in memory of their own, so that the
/// `pthread_mutex_t` never moves (POSIX forbids copying one) while the struct may, and the value
/// is reached through a plain pointer. (A first version kept both in a generic class: Swift's
/// exclusivity tracking of the class's `value` then showed ThreadSanitizer a "modification" of
/// the object that raced with the next thread's read of it on its way to `pthread_mutex_lock`.)
public struct PThreadMutex<Value: ~Copyable>: ~Copyable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    public init(_ initialValue: consuming sending Value) {
        mutex = UnsafeMutablePointer.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // A default mutex: no attributes are needed, and initialisation cannot fail.
        pthread_mutex_init(mutex, nil)
        value = UnsafeMutablePointer.allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    /// Runs `body` with the value, holding the lock.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}

extension PThreadMutex: @unchecked Sendable where Value: ~Copyable {}
