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
