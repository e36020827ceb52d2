// Built with the Serve trait only (Package.swift).
#if Serve
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SoundCompassIO

/// The wall clock (SoundCompassIO's ``WallClock``) written as ISO 8601 with milliseconds,
/// without allocating, for served records.
extension WallClock {
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
