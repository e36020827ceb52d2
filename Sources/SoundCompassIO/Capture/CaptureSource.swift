import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A live stream of stereo audio read period by period: an ALSA device, raw PCM on a pipe.
public protocol CaptureSource: StereoSource {
    /// Frames one ``read(left:right:)`` returns at most: the device's period.
    var periodFrames: Int { get }
    /// Overruns (the device's buffer filled before it was read) recovered from so far.
    var overrunCount: Int { get }
    /// Suspends (power management) recovered from so far.
    var suspendCount: Int { get }
    /// Monotonic time, in nanoseconds, at which the last read returned its audio
    /// (see ``MonotonicClock``).
    var lastReadTime: UInt64 { get }
    /// One line describing the stream as opened: format, channels, rate, period.
    var streamDescription: String { get }
}

/// The system's monotonic clock.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point; never goes backwards.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
