#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One of the system's clocks now, nanoseconds (`clock_gettime`): the one wrapper of it.
/// - Parameter clock: `CLOCK_MONOTONIC` or `CLOCK_REALTIME`.
@inline(__always)
func systemClockNanoseconds(_ clock: clockid_t) -> Int64 {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
}

/// The system's monotonic clock.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point; never goes backwards.
    package static func now() -> UInt64 {
        UInt64(bitPattern: systemClockNanoseconds(CLOCK_MONOTONIC))
    }

    /// Nanoseconds from `start` to `now`, 0 when `now` is the earlier. Two threads that read the
    /// clock and then take a lock can see each other's readings in either order: a bare
    /// `now - start` then wraps to about 585 years (the server took a client that was reading
    /// everything for one stalled for that long, and dropped it).
    package static func elapsed(from start: UInt64, to now: UInt64) -> UInt64 {
        now > start ? now - start : 0
    }
}

/// The wall clock (UTC, `CLOCK_REALTIME`): the time served records carry (`wall_time`).
package enum WallClock {
    /// Nanoseconds since the Unix epoch, now.
    package static func nowNanoseconds() -> Int64 {
        systemClockNanoseconds(CLOCK_REALTIME)
    }

    /// The wall-clock time of a moment of the monotonic clock (``MonotonicClock``, ns), by the
    /// two clocks' difference now.
    package static func nanoseconds(ofMonotonic monotonic: UInt64) -> Int64 {
        let monoNow = systemClockNanoseconds(CLOCK_MONOTONIC)
        let realNow = systemClockNanoseconds(CLOCK_REALTIME)
        return realNow - (monoNow - Int64(bitPattern: monotonic))
    }
}
