/// Bounds on what a capture stream may ask for, so that a mistyped option or a hostile header
/// cannot make the reader allocate gigabytes.
package enum CaptureLimits {
    /// Most channels per frame a raw stream or device may have (ALSA's own cards stop far below).
    package static let maximumChannelCount = 1024
    /// Most samples (frames × channels per frame) one period may hold: 4,194,304, 16 MiB of
    /// 32-bit samples. A stereo stream may therefore read up to 2,097,152 frames at a time.
    package static let maximumPeriodSamples = 1 << 22

    /// Whether a period of `frames` frames of `channels` channels fits ``maximumPeriodSamples``
    /// (without overflowing).
    package static func periodFits(frames: Int, channels: Int) -> Bool {
        guard frames > 0, channels > 0 else { return false }
        let (product, overflow) = frames.multipliedReportingOverflow(by: channels)
        return !overflow && product <= maximumPeriodSamples
    }
}
