#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a lock, for state shared between threads (the FFT plan cache, the server's
/// broadcast and connection registries).
///
/// A pthread mutex rather than the standard library's `Synchronization.Mutex`: on Linux that
/// one is a futex inside the uninstrumented standard library, which ThreadSanitizer cannot see,
/// so every access it guards reads as a data race (`scripts/sanitize tsan`). Locking never
/// allocates.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// - Parameter value: the value the lock guards.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, under the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
