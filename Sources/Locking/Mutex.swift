/// The lock every module uses: the standard library's `Synchronization.Mutex`, except in a
/// ThreadSanitizer build (`scripts/sanitize thread`), which swaps in `PThreadMutex`.
///
/// Why the swap: on Linux, `Synchronization.Mutex` is a priority-inheritance futex. Its
/// uncontended path is an atomic compare-and-swap that ThreadSanitizer sees, but when the lock is
/// contended the kernel hands it over (`FUTEX_LOCK_PI` / `FUTEX_UNLOCK_PI`, called from the
/// uninstrumented `libswiftSynchronization`), and ThreadSanitizer sees no happens-before edge
/// between the thread that unlocked and the one that got the lock. Every contended `withLock`
/// then reads as a data race on the value it guards: the first run of the suite under
/// ThreadSanitizer reported 15 "races", all of them accesses inside `withLock` closures
/// (`CurlMultiLoop`, `ServerCore`). ThreadSanitizer intercepts `pthread_mutex_lock` and
/// `pthread_mutex_unlock`, so a lock built on them shows it the real ordering, and what it
/// reports is a race in our code. docs/reliability.md, "Sanitizers".
#if SIGNINSIM_TSAN_VISIBLE_LOCKS
    public typealias Mutex = PThreadMutex
#else
    @_exported public import Synchronization
#endif
