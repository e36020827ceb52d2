#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A recording rig whose two channels do not match: the right channel arrives late and at a
/// different gain — what a calibration profile corrects (see `soundcompass calibrate`).
public struct ChannelMismatch: Sendable, Equatable {
    /// Extra delay of the right channel relative to the left, seconds (negative: the right
    /// channel is early).
    public var delay: Double
    /// Gain of the right channel relative to the left, dB.
    public var gainDecibels: Double

    /// - Parameters:
    ///   - delay: seconds the right channel lags the left.
    ///   - gainDecibels: right-channel gain re the left, dB.
    public init(delay: Double = 0, gainDecibels: Double = 0) {
        self.delay = delay
        self.gainDecibels = gainDecibels
    }

    /// `signal` as this rig records it: the right channel delayed exactly (band-limited,
    /// frequency domain) and scaled; the left channel untouched.
    public func apply(to signal: StereoSignal) -> StereoSignal {
        guard delay != 0 || gainDecibels != 0 else { return signal }
        let gain = pow(10, gainDecibels / 20)
        let right = signal.right.map(Double.init)
        let delayed = delay == 0 ? right : FractionalDelay.exact(right, bySamples: delay * signal.sampleRate)
        return StereoSignal(
            left: signal.left, right: delayed.map { Float($0 * gain) }, sampleRate: signal.sampleRate)
    }
}
