// Built with the Serve trait only (Package.swift).
#if Serve
#if canImport(Glibc)
import Glibc
#endif
import SoundCompassEngine
import SoundCompassIO

/// Gives the memory that streaming clients took back to the system once the last one has gone.
///
/// glibc keeps freed memory in its arenas; `malloc_trim(0)` hands the free pages back. It must
/// run after the connections are torn down, not when the last response ends: a dropped client's
/// queued writes, its channel and its pipeline are freed after its response's body returns (on
/// 300 dropped clients, trimming at that moment left 4.6–8.2 MB behind). So the last client's
/// leaving only marks a trim as due, and the server's periodic check runs it once no streaming
/// client has been connected for ``settleNanoseconds``.
final class MemoryReturn: Sendable {
    /// How long no streaming client must be connected before the trim, ns.
    static let settleNanoseconds: UInt64 = 400_000_000

    /// When the last streaming client left, if a trim is due (monotonic ns).
    private let due = Locked<UInt64?>(nil)

    /// The last streaming client has left, at `now` (monotonic ns).
    func lastClientLeft(now: UInt64) { due.withLock { $0 = now } }

    /// The periodic check: trims when a trim is due, it has settled and no streaming client has
    /// come since.
    /// - Parameters:
    ///   - now: monotonic time, ns.
    ///   - clients: streaming clients connected now.
    /// - Returns: whether the trim ran.
    @discardableResult
    func check(now: UInt64, clients: Int) -> Bool {
        let run = due.withLock { due -> Bool in
            guard let left = due else { return false }
            if clients > 0 {
                due = nil
                return false
            }
            guard MonotonicClock.elapsed(from: left, to: now) >= Self.settleNanoseconds else { return false }
            due = nil
            return true
        }
        if run { Self.trim() }
        return run
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (the C library's module map leaves it
    /// out; without glibc nothing is done).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    private static func trim() { _ = mallocTrim?(0) }
}
#endif
