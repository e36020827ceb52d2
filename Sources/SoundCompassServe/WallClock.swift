// Built with the Serve trait only (Package.swift).
#if Serve
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The wall clock (UTC) of served records: `CLOCK_REALTIME`, written as ISO 8601 with
/// milliseconds, without allocating.
package enum WallClock {
    /// Nanoseconds since the Unix epoch, now.
    package static func nowNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// The wall-clock time of a moment of the monotonic clock (`CLOCK_MONOTONIC`, ns), by the
    /// two clocks' difference now.
    package static func nanoseconds(ofMonotonic monotonic: UInt64) -> Int64 {
        var real = timespec(), mono = timespec()
        clock_gettime(CLOCK_MONOTONIC, &mono)
        clock_gettime(CLOCK_REALTIME, &real)
        let monoNow = Int64(mono.tv_sec) * 1_000_000_000 + Int64(mono.tv_nsec)
        let realNow = Int64(real.tv_sec) * 1_000_000_000 + Int64(real.tv_nsec)
        return realNow - (monoNow - Int64(bitPattern: monotonic))
    }

    /// Appends `2026-11-25T15:04:05.123Z` (24 bytes) for `nanoseconds` since the epoch,
    /// truncated to the millisecond.
    package static func appendISO8601(_ nanoseconds: Int64, to bytes: inout [UInt8]) {
        let milliseconds = nanoseconds >= 0 ? nanoseconds / 1_000_000 : (nanoseconds - 999_999) / 1_000_000
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var v = value
            for _ in 0..<count {
                bytes.append(UInt8(ascii: "0") + UInt8((v / divisor) % 10))
                v %= divisor
                divisor /= 10
                if divisor == 0 { break }
            }
        }
        digits(Int(parts.tm_year) + 1900, 4); bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2); bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2); bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2); bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2); bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2); bytes.append(UInt8(ascii: "."))
        digits(millis, 3); bytes.append(UInt8(ascii: "Z"))
    }
}
#endif
